/**
 * Issue 13: two clients share team memory through the namespace `acme/web` (sent as `acme%2Fweb`),
 * apart from a namespace `acme-web` of the same team.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { DATABASE_KINDS } from "@teammem/server/testing";
import { teammem, tempDir } from "../support/cli.js";
import { status, sync, tree } from "../support/clients.js";
import { startTestServer } from "../support/server.js";

describe.each(DATABASE_KINDS)("an owner/repo namespace on %s", (kind) => {
  it("syncs two clients through acme/web and keeps acme-web apart", async () => {
    const server = await startTestServer(kind);
    onTestFinished(() => server.dispose());
    const root = await tempDir();
    onTestFinished(() => root.remove());
    const env = { TEAMMEM_TOKEN: await server.token("alice") };
    const [a, b, other] = ["a", "b", "other"].map((d) => join(root.path, d)) as [string, string, string];
    for (const [dir, ns, said] of [
      [a, "acme/web", "created on the server (new, no entries yet)"],
      [b, "acme/web", "found on the server (0 entries)"],
      [other, "acme-web", "created on the server (new, no entries yet)"],
    ] as const) {
      const init = await teammem(["init", "--dir", dir, "--server", server.url, "--namespace", ns], env);
      expect([init.code, init.stderr]).toEqual([0, ""]);
      expect(init.stdout).toContain(`namespace ${ns} ${said}`);
    }
    await writeFile(join(a, "team", "build.md"), "run make check\n");
    expect((await sync(a, env)).code).toBe(0);
    expect((await sync(b, env)).code).toBe(0);
    expect((await sync(other, env)).code).toBe(0);
    expect(await readFile(join(b, "team", "build.md"), "utf8")).toBe("run make check\n");
    expect(await tree(other)).toEqual([]);
    expect(await status(b)).toMatchObject({ namespace: "acme/web", cursor: 1 });
  });
});
