/**
 * The sync summary's event lines (try-out F11): after a teammate's bulk change, the routine lines
 * are capped at 50 and counted, but a purge notice that arrived after them is still printed.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { setup, sync } from "../support/clients.js";

describe("sync summary event lines on postgres", () => {
  it("prints the purge notice that arrives after more than 50 routine changes, caps the routine lines and counts the rest", async () => {
    const { server, a, b, envA, envB } = await setup("postgres");
    const admin = await server.token("ada", "default", "admin");
    await writeFile(join(a, "team", "deploy.md"), "deploy notes\nPRIVATE leaked line\n");
    expect((await sync(a, envA)).code).toBe(0);
    await writeFile(join(a, "team", "deploy.md"), "deploy notes\n");
    expect((await sync(a, envA)).code).toBe(0); // v2, the head
    expect((await sync(b, envB)).code).toBe(0);
    for (let i = 0; i < 60; i++) await writeFile(join(a, "team", `bulk-${String(i).padStart(2, "0")}.md`), `note ${i}\n`);
    expect((await sync(a, envA)).code).toBe(0);
    const res = await fetch(`${server.url}/v1/admin/namespaces/acme-web/purge`, {
      method: "POST",
      headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
      body: JSON.stringify({ path: "deploy.md", version: 1, reason: "leaked line" }),
    });
    expect(res.status).toBe(200);

    const bSync = await sync(b, envB);
    expect(bSync.code).toBe(0);
    const lines = bSync.stdout.split("\n");
    expect(lines).toContain("team/deploy.md: version v1 purged from the server's history by ada (leaked line)");
    expect(lines.filter((l) => / created by alice \(v1\)$/.test(l))).toHaveLength(50);
    expect(lines).toContain("... and 10 more file change(s) (sync --json lists them all)");
    // The purge came after the bulk on the feed (so the old arrival-order cap of 50 dropped it).
    const purgeAt = lines.findIndex((l) => l.includes("purged from the server's history"));
    expect(purgeAt).toBeGreaterThan(lines.findLastIndex((l) => l.includes(" created by alice")));
  });
});
