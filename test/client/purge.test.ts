/**
 * Purge reaches teammates (issue 11): after an admin purges the head of an entry, a teammate's next
 * sync deletes the file holding the purged content (the tombstone of kind purge on the change feed).
 */
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DATABASE_KINDS } from "@teammem/server/testing";
import { setup, sync } from "../support/clients.js";
import { dumpAllRows } from "../support/server.js";

describe.each(DATABASE_KINDS)("purge seen by clients on %s", (kind) => {
  it("deletes the purged file on a teammate's next sync, and the content is gone from the server", async () => {
    const { server, a, b, envA, envB } = await setup(kind);
    const admin = await server.token("ada", "default", "admin");
    await writeFile(join(a, "team", "private.md"), "PRIVATE-c0ffee note\n");
    expect((await sync(a, envA)).code).toBe(0);
    expect((await sync(b, envB)).code).toBe(0);
    expect(existsSync(join(b, "team", "private.md"))).toBe(true);
    const res = await fetch(`${server.url}/v1/admin/namespaces/acme-web/purge`, {
      method: "POST",
      headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
      body: JSON.stringify({ path: "private.md", version: 1, reason: "private note" }),
    });
    expect(await res.json()).toMatchObject({ versions: [1], tombstoneVersion: 2 });
    expect((await sync(b, envB)).code).toBe(0);
    expect(existsSync(join(b, "team", "private.md"))).toBe(false);
    expect((await sync(a, envA)).code).toBe(0);
    expect(existsSync(join(a, "team", "private.md"))).toBe(false);
    expect(await dumpAllRows(server.database)).not.toContain("PRIVATE-c0ffee");
  });
});
