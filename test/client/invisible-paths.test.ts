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
import { DATABASE_KINDS, renameStoredEntry, rowsOf } from "@teammem/server/testing";
import { teammem } from "../support/cli.js";
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

  it("shows every refused invisible character escaped as \\uXXXX in status and sync output, as a bidi control is (try18 F12)", async () => {
    const { a, envA } = await setup(kind);
    const names = [0x200b, 0x3164, 0x034f, 0xfeff].map((cp) => `w/zw${String.fromCodePoint(cp)}x.md`);
    await mkdir(join(a, "team", "w"));
    for (const n of names) await writeFile(join(a, "team", n), "b\n");
    const synced = await sync(a, envA);
    const shown = (await teammem(["status", "--dir", a])).stdout;
    for (const cp of ["200b", "3164", "034f", "feff"]) {
      expect(shown).toContain(`team/w/zw\\u${cp}x.md`);
      expect(synced.stderr + synced.stdout).toContain(`team/w/zw\\u${cp}x.md`);
    }
    for (const cp of [0x200b, 0x3164, 0x034f, 0xfeff]) expect(shown + synced.stderr + synced.stdout).not.toContain(String.fromCodePoint(cp));
    expect((await status(a)).skipped.map((s: { path: string }) => s.path)).toEqual(["200b", "3164", "034f", "feff"].map((cp) => `team/w/zw\\u${cp}x.md`).sort());
  });

  it("never writes such a name an older server sends, and lets a file pulled under it before be renamed away", async () => {
    const { server, a, b, envA, envB } = await setup(kind);
    await writeFile(join(a, "team", "evil.md"), "hi\n");
    expect((await sync(a, envA)).code).toBe(0);
    // A server from before the rule holds and sends the name.
    await renameStoredEntry(server.database, "evil.md", trojan);
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

  it("reads the history and diff of an entry stored under such a name (or a Windows device name, or a character Windows does not allow) before the rule, as the server does; a restore of it is the server's refusal (try17 C2, try18 F11)", async () => {
    const { server, a, envA } = await setup(kind);
    await writeFile(join(a, "team", "evil.md"), "one\n");
    await writeFile(join(a, "team", "con-notes.md"), "con\n");
    await writeFile(join(a, "team", "what.md"), "what\n");
    expect((await sync(a, envA)).code).toBe(0);
    const legacy: [string, string][] = [["evil.md", trojan], ["con-notes.md", "CON.md"], ["what.md", "what?.md"]];
    for (const [from, to] of legacy) await renameStoredEntry(server.database, from, to);
    for (const [, path] of legacy) {
      const history = await teammem(["history", `team/${path}`, "--dir", a, "--json"], envA);
      expect({ path, code: history.code, versions: history.code === 0 ? JSON.parse(history.stdout).versions.length : history.stderr }).toEqual({ path, code: 0, versions: 1 });
      const diff = await teammem(["diff", `team/${path}`, "--dir", a, "--json"], envA);
      expect({ path, code: diff.code }).toEqual({ path, code: 0 });
      const restore = await teammem(["restore", `team/${path}`, "--version", "1", "--dir", a], envA);
      expect({ path, code: restore.code }).not.toEqual({ path, code: 0 }); // a new version under that name: the server refuses it
      expect(restore.stderr).toMatch(/^teammem: .*(U\+202E RIGHT-TO-LEFT OVERRIDE|the device CON|'\?', a character Windows does not allow).* \[invalid_path\]\n$/);
    }
  });

  it("skips a name holding a character Windows does not allow with a rename hint, refuses to push it, never writes one an older server sends, and lets one pulled before be renamed away (try18 F11)", async () => {
    const { server, a, b, envA, envB } = await setup(kind);
    await writeFile(join(a, "team", "what?.md"), "hi\n");
    await writeFile(join(a, "team", "ok.md"), "ok\n");
    expect((await sync(a, envA)).code).toBe(0);
    const message = `path holds '?', a character Windows does not allow in file names (: * ? < > | "): a teammate on Windows could not write it; rename it`;
    expect((await status(a)).skipped).toEqual([{ path: "team/what?.md", reason: `invalid path: ${message}, e.g. to team/what_.md, to sync it`, symlink: false }]);
    const push = await teammem(["push", "team/what?.md", "--dir", a], envA);
    expect([push.code, push.stderr]).toEqual([2, expect.stringMatching(/^teammem: team\/what\?\.md is not a valid team path: .*'\?', a character Windows does not allow.* \[invalid_path\]\n$/)]);
    expect(await rowsOf(server.database, sql`SELECT path FROM entries ORDER BY path`)).toEqual([{ path: "ok.md" }]);

    // A server from before the rule holds and sends such a name: never written.
    await renameStoredEntry(server.database, "ok.md", "a|b.md");
    const pulled = await sync(b, envB);
    expect(pulled.code).toBe(0);
    expect(pulled.stderr).toContain("skipped a server change with an invalid path: team/a|b.md (path holds '|'");
    expect(await tree(b)).toEqual([]);

    // A client that pulled it before the rule: renamed as the hint says, the old name is deleted on the server.
    await writeFile(join(b, "team", "a|b.md"), "ok\n");
    const stateFile = join(b, ".teammem", "state.json");
    const state = JSON.parse(await readFile(stateFile, "utf8"));
    state.bases["a|b.md"] = { version: 1, sha256: sha256Hex("ok\n") };
    await writeFile(stateFile, JSON.stringify(state));
    expect((await sync(b, envB)).code).toBe(0);
    expect(await rowsOf(server.database, sql`SELECT path, deleted FROM entries ORDER BY path`)).toEqual([{ path: "a|b.md", deleted: false }]);
    await rename(join(b, "team", "a|b.md"), join(b, "team", "a_b.md"));
    expect((await sync(b, envB)).code).toBe(0);
    expect(await rowsOf(server.database, sql`SELECT path, deleted FROM entries ORDER BY deleted`)).toEqual([
      { path: "a_b.md", deleted: false },
      { path: "a|b.md", deleted: true },
    ]);
  });
});
