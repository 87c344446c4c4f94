/**
 * Names holding a bidi control or another invisible character (try17 M4, refused by
 * `checkEntryPath`): never synced from team/, listed as skipped with the code point and a name to
 * rename to, never written when an older server sends one; a file pulled under such a name before
 * the rule can be renamed away (the delete of the old name is still accepted).
 */
import { existsSync } from "node:fs";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "@teammem/protocol";
import { DATABASE_KINDS, rowsOf } from "@teammem/server/testing";
import { setup, status, sync, tree } from "../support/clients.js";

const rlo = String.fromCodePoint(0x202e);
const trojan = `a/team/${rlo}evil.md`;

describe.each(DATABASE_KINDS)("names with invisible characters on %s", (kind) => {
  it("lists a Trojan-Source name under team/ as skipped, with the code point and a rename hint, and sends nothing of it", async () => {
    const { server, a, envA } = await setup(kind);
    await mkdir(join(a, "team", "a", "team"), { recursive: true });
    await writeFile(join(a, "team", trojan), "hi\n");
    await writeFile(join(a, "team", "ok.md"), "ok\n");
    expect((await sync(a, envA)).code).toBe(0);
    expect((await status(a)).skipped).toEqual([
      { path: "team/a/team/\\u202eevil.md", reason: expect.stringMatching(/^invalid path: path holds U\+202E RIGHT-TO-LEFT OVERRIDE, a bidi control: .*e\.g\. to team\/a\/team\/evil\.md, to sync it$/), symlink: false },
    ]);
    expect(await rowsOf(server.database, sql`SELECT path FROM entries ORDER BY path`)).toEqual([{ path: "ok.md" }]);
  });

  it("never writes such a name an older server sends, and lets a file pulled under it before be renamed away", async () => {
    const { server, a, b, envA, envB } = await setup(kind);
    await writeFile(join(a, "team", "evil.md"), "hi\n");
    expect((await sync(a, envA)).code).toBe(0);
    // A server from before the rule holds and sends the name.
    for (const table of ["entries", "versions"])
      await rowsOf(server.database, sql`UPDATE ${sql.raw(table)} SET path = ${trojan} WHERE path = 'evil.md'`);
    await rowsOf(server.database, sql`UPDATE entries SET fold_key = ${trojan} WHERE path = ${trojan}`);
    const pulled = await sync(b, envB);
    expect(pulled.code).toBe(0);
    expect(pulled.stderr).toContain("skipped a server change with an invalid path: team/a/team/\\u202eevil.md (path holds U+202E RIGHT-TO-LEFT OVERRIDE");
    expect(await tree(b)).toEqual([]);

    // A client that pulled the name before the rule: its file and base are there; the file is skipped, not deleted.
    await mkdir(join(b, "team", "a", "team"), { recursive: true });
    await writeFile(join(b, "team", trojan), "hi\n");
    const stateFile = join(b, ".teammem", "state.json");
    const state = JSON.parse(await readFile(stateFile, "utf8"));
    state.bases[trojan] = { version: 1, sha256: sha256Hex("hi\n") };
    await writeFile(stateFile, JSON.stringify(state));
    expect((await sync(b, envB)).code).toBe(0);
    expect(await rowsOf(server.database, sql`SELECT path, deleted FROM entries ORDER BY path`)).toEqual([{ path: trojan, deleted: false }]);

    // Renamed as the hint says: the valid name is sent, the old one deleted on the server.
    await rename(join(b, "team", trojan), join(b, "team", "a", "team", "evil.md"));
    expect((await sync(b, envB)).code).toBe(0);
    expect(await rowsOf(server.database, sql`SELECT path, deleted FROM entries ORDER BY deleted`)).toEqual([
      { path: "a/team/evil.md", deleted: false },
      { path: trojan, deleted: true },
    ]);
    expect(existsSync(join(b, "team", trojan))).toBe(false);
  });
});
