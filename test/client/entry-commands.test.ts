/** `teammem history`, `diff` and `restore` against a real server (issue 8, "Client commands people expect"). */
import { existsSync } from "node:fs";
import { readFile, rename, rm, writeFile, mkdir } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { teammem } from "../support/cli.js";
import { setup, status, sync } from "../support/clients.js";
import { dumpAllRows, versionsOf } from "../support/server.js";

const json = (r: { stdout: string }) => JSON.parse(r.stdout);

// PostgreSQL only: these commands add nothing database-specific (the server's route tests cover
// history, version and restore on both databases), and a file stays within its time budget.
const kind = "postgres";

describe("history, diff and restore", () => {
  it("lists every version with author and kind (create, edit, delete, restore, rename), diffs versions and restores one", async () => {
    const { a, b, envA, envB, server } = await setup(kind);
    const file = join(a, "team", "notes.md");
    await writeFile(file, "one\n");
    await sync(a, envA); // v1 create by alice
    await sync(b, envB);
    await writeFile(join(b, "team", "notes.md"), "one\ntwo\n");
    await sync(b, envB); // v2 edit by bob
    await sync(a, envA);
    await rm(file);
    await sync(a, envA); // v3 tombstone by alice

    const h = await teammem(["history", "team/notes.md", "--dir", a, "--json"], envA);
    expect(h.code, h.stderr).toBe(0);
    expect(json(h).versions.map((v: { version: number; author: string; description: string; deleted: boolean }) => [v.version, v.author, v.description, v.deleted])).toEqual([
      [3, "alice", "delete (tombstone)", true],
      [2, "bob", "edit", false],
      [1, "alice", "create", false],
    ]);
    const text = await teammem(["history", "team/notes.md", "--dir", a], envA);
    expect(text.stdout).toMatch(/^team\/notes\.md: 3 versions on the server, newest first\nv3 {2}\S+ {2}alice {2}delete \(tombstone\)\nv2 {2}\S+ {2}bob {2}edit {2}8 B {2}sha256 [0-9a-f]{12}\n/);

    // What v2 changed; v1 against v2; the head (a tombstone) against a working file that is gone: no difference.
    const d = await teammem(["diff", "team/notes.md", "--to", "2", "--dir", a], envA);
    expect(d.stdout).toContain("--- team/notes.md@v1\n+++ team/notes.md@v2\n@@ -1,1 +1,2 @@\n one\n+two\n");
    expect(json(await teammem(["diff", "team/notes.md", "--from", "1", "--to", "2", "--dir", a, "--json"], envA))).toMatchObject({
      ok: true,
      changed: true,
      from: { version: 1 },
      to: { version: 2 },
    });
    const none = await teammem(["diff", "team/notes.md", "--dir", a], envA);
    expect([none.code, none.stdout, none.stderr]).toEqual([0, "", "teammem: no differences between team/notes.md@v3 and team/notes.md (working file)\n"]);

    // Restore v2: a new version of kind restore, the working file holds it, bob gets it at his next sync.
    const r = await teammem(["restore", "team/notes.md", "--version", "2", "--dir", a, "--json"], envA);
    expect(r.code, r.stderr).toBe(0);
    expect(json(r)).toMatchObject({ ok: true, path: "team/notes.md", restoredFrom: 2, version: 4, deleted: false });
    expect(await readFile(file, "utf8")).toBe("one\ntwo\n");
    expect((await status(a)).modified).toEqual([]);
    expect(await sync(a, envA)).toMatchObject({ code: 0 });
    expect(await readFile(file, "utf8")).toBe("one\ntwo\n");
    expect(await sync(b, envB)).toMatchObject({ code: 0 });
    expect(await readFile(join(b, "team", "notes.md"), "utf8")).toBe("one\ntwo\n");
    expect(json(await teammem(["history", "team/notes.md", "--dir", b, "--json"], envB)).versions[0]).toMatchObject({ version: 4, kind: "restore", author: "alice" });

    // A working-file edit: the default diff is the server head against it.
    await writeFile(join(b, "team", "notes.md"), "one\ntwo\nthree\n");
    expect((await teammem(["diff", "team/notes.md", "--dir", b], envB)).stdout).toContain(
      "--- team/notes.md@v4\n+++ team/notes.md (working file)\n@@ -1,2 +1,3 @@\n one\n two\n+three\n",
    );
    // ...and restore refuses to overwrite it (nothing changes on the server).
    const refused = await teammem(["restore", "team/notes.md", "--version", "1", "--dir", b, "--json"], envB);
    expect([refused.code, json(refused).error.code]).toEqual([1, "local_changes"]);
    expect((await versionsOf(server.database, "notes.md")).length).toBe(4);
    expect(await readFile(join(b, "team", "notes.md"), "utf8")).toBe("one\ntwo\nthree\n");

    // Restoring the tombstone deletes again (file removed here and at the teammate's).
    expect((await teammem(["restore", "team/notes.md", "--version", "3", "--dir", a], envA)).stdout).toContain("a delete: the entry is deleted as version 5");
    expect(existsSync(file)).toBe(false);
  });

  it("shows a rename in both paths' histories", async () => {
    const { a, envA } = await setup(kind);
    await mkdir(join(a, "team", "docs"));
    await writeFile(join(a, "team", "a.md"), "- a line that makes the rename recognisable\n- and another\n");
    await sync(a, envA);
    await rename(join(a, "team", "a.md"), join(a, "team", "docs", "a.md"));
    await sync(a, envA);
    const old = json(await teammem(["history", "team/a.md", "--dir", a, "--json"], envA));
    expect(old.versions[0]).toMatchObject({ deleted: true, renamedTo: "team/docs/a.md", description: "renamed to team/docs/a.md (tombstone)" });
    const moved = json(await teammem(["history", "team/docs/a.md", "--dir", a, "--json"], envA));
    expect(moved.versions[0]).toMatchObject({ deleted: false, renamedFrom: "team/a.md", description: "renamed from team/a.md" });
  });
});

describe("history, diff, restore, resolve and push refuse bad input with a stable code and exit 2, changing nothing", () => {
  const cases: [string, (dir: string, outside: string) => string[], string][] = [
    ["a private path", () => ["history", "MEMORY.md"], "private_path"],
    ["a private path (diff)", () => ["diff", "notes/private.md"], "private_path"],
    ["a private path (restore)", () => ["restore", "MEMORY.md", "--version", "1"], "private_path"],
    ["a path outside the folder", (_dir, outside) => ["history", outside], "outside_folder"],
    ["a path outside the folder (restore)", () => ["restore", "../elsewhere/team/x.md", "--version", "1"], "outside_folder"],
    ["the team folder itself", () => ["history", "team/"], "invalid_path"],
    ["an invalid entry path", () => ["diff", "team/a/.git/config"], "invalid_path"],
    ["an invalid entry path (resolve)", () => ["resolve", "../x.md", "--take", "mine"], "invalid_path"],
    ["a private path (resolve, absolute)", (dir) => ["resolve", join(dir, "MEMORY.md")], "private_path"],
    ["a path outside the folder (resolve, absolute)", (_dir, outside) => ["resolve", outside], "outside_folder"],
    ["a private path (push)", () => ["push", "MEMORY.md"], "private_path"],
    ["a path outside the folder (push)", (_dir, outside) => ["push", outside], "outside_folder"],
    ["an invalid entry path (push)", () => ["push", "team/a/.git/config"], "invalid_path"],
    ["a path without history", () => ["history", "team/never.md"], "unknown_path"],
    ["an unknown version (restore)", () => ["restore", "team/x.md", "--version", "99"], "unknown_version"],
    ["an unknown version (diff --from)", () => ["diff", "team/x.md", "--from", "7"], "unknown_version"],
    ["an unknown version (diff --to)", () => ["diff", "team/x.md", "--to", "7"], "unknown_version"],
    ["a non-number version", () => ["restore", "team/x.md", "--version", "two"], "invalid_version"],
    ["a fractional version", () => ["diff", "team/x.md", "--from", "1.5"], "invalid_version"],
    ["a negative version", () => ["diff", "team/x.md", "--to", "-1"], "invalid_version"],
    ["version 0 to restore", () => ["restore", "team/x.md", "--version", "0"], "invalid_version"],
    ["a huge version", () => ["restore", "team/x.md", "--version", "99999999999"], "invalid_version"],
  ];

  it(`each of: ${cases.map(([name]) => name).join(", ")}`, async () => {
    const { a, envA, server } = await setup(kind);
    await writeFile(join(a, "team", "x.md"), "x\n");
    await writeFile(join(a, "MEMORY.md"), "private\n");
    await sync(a, envA);
    const before = await dumpAllRows(server.database);
    const stateBefore = await readFile(join(a, ".teammem", "state.json"), "utf8");
    for (const [name, argv, code] of cases) {
      const r = await teammem([...argv(a, join(a, "..", "outside.md")), "--dir", a, "--json"], envA);
      expect(r.code, `${name}: ${r.stderr}`).toBe(2);
      expect(json(r), name).toEqual({ ok: false, error: { code, message: expect.any(String) } });
      expect(r.stderr, name).toContain(`[${code}]`);
    }
    expect(await dumpAllRows(server.database)).toEqual(before);
    expect(await readFile(join(a, ".teammem", "state.json"), "utf8")).toBe(stateBefore);
    expect(await readFile(join(a, "team", "x.md"), "utf8")).toBe("x\n");
  });
});
