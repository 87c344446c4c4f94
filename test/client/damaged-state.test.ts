/**
 * try13 F14: a damaged state file. One that can be rebuilt (state.json, not-written.json, the
 * other reports, last-sync.json, scan-policy.json, bypasses.json, outbox-seq.json) is moved aside
 * to `<file>.corrupt-<time>`, reported in one warning line, and rebuilt (state.json by a full
 * reconciliation: the local edit reaches the server, the teammate's change is written). One that
 * cannot (config.json, a queued operation, conflicts.json) stops every command with one
 * `state_unreadable` line naming the file and what to do, and is left exactly as it was.
 */
import { readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { teammem } from "../support/cli.js";
import { setup, sync, syncJson } from "../support/clients.js";

/** Three ways a file gets damaged: cut off, overwritten with bytes that are not JSON, JSON of the wrong shape. */
const DAMAGE: readonly [string, (text: string) => string | Buffer][] = [
  ["truncated", (text) => text.slice(0, Math.floor(text.length / 2))],
  ["garbage", () => Buffer.from([0xff, 0x00, 0x7b, 0x22, 0xfe, 0x0a])],
  ["wrong shape", () => JSON.stringify({ entries: 5, version: "one", cursor: "x", lastSeq: -1, at: 7 })],
];

/** The warning lines on stderr. */
const warnings = (stderr: string) => stderr.split("\n").filter((l) => l.startsWith("teammem: warning: "));

async function damage(file: string, how: (text: string) => string | Buffer): Promise<string | Buffer> {
  const text = await readFile(file, "utf8").catch(() => '{"entries": []}\n');
  const damaged = how(text.length > 2 ? text : '{"entries": []}\n');
  await writeFile(file, damaged);
  return damaged;
}

/** The names in `dir` starting with `name.corrupt-`. */
async function asides(dir: string, name: string): Promise<string[]> {
  return (await readdir(dir)).filter((n) => n.startsWith(`${name}.corrupt-`));
}

describe("a damaged state file", () => {
  it("state.json truncated, garbage, wrong shape: sync moves it aside, warns once, reconciles, keeps the local edit", async () => {
    const { a, b, envA, envB } = await setup("pglite");
    await writeFile(join(a, "team", "note.md"), "v0\n");
    expect((await sync(a, envA)).code).toBe(0);
    expect((await sync(b, envB)).code).toBe(0);
    const state = join(a, ".teammem");
    for (const [i, [kind, how]] of DAMAGE.entries()) {
      await writeFile(join(a, "team", "note.md"), `edit ${i} here\n`); // a local edit not sent yet
      await writeFile(join(b, "team", `teammate-${i}.md`), `from bob ${i}\n`);
      expect((await sync(b, envB)).code).toBe(0);
      const damaged = await damage(join(state, "state.json"), how);
      const before = await asides(state, "state.json");
      const run = await teammem(["sync", "--dir", a], envA);
      expect({ kind, code: run.code }).toEqual({ kind, code: 0 });
      expect({ kind, lines: warnings(run.stderr) }).toEqual({
        kind,
        lines: [expect.stringMatching(/^teammem: warning: state file \S+state\.json was damaged \(.+\); moved aside to \S+state\.json\.corrupt-\S+ and rebuilt: /)],
      });
      const moved = (await asides(state, "state.json")).filter((n) => !before.includes(n));
      expect(moved).toHaveLength(1);
      expect(await readFile(join(state, moved[0]!))).toEqual(Buffer.from(damaged)); // kept as it was
      expect(await readFile(join(a, "team", `teammate-${i}.md`), "utf8")).toBe(`from bob ${i}\n`);
      expect((await sync(b, envB)).code).toBe(0);
      // The edit reaches the server (its base found again from the base store and the history, recover-bases.ts).
      expect(await readFile(join(b, "team", "note.md"), "utf8")).toContain(`edit ${i} here\n`);
      // Rebuilt: the next run is quiet.
      const again = await teammem(["sync", "--dir", a], envA);
      expect({ kind, code: again.code, warnings: warnings(again.stderr) }).toEqual({ kind, code: 0, warnings: [] });
    }
  }, 400_000);

  it.each(DAMAGE.slice(0, 2))("state.json %s with a queued edit, delete and rename and an edit not queued: nothing is lost, merges use the old bases", async (_kind, how) => {
    const { server, a, b, envA, envB } = await setup("pglite");
    const t = (dir: string, name: string) => join(dir, "team", name);
    await writeFile(t(a, "keep.md"), "v0\n");
    await writeFile(t(a, "gone.md"), "bye\n");
    await writeFile(t(a, "old.md"), "moving\n");
    await writeFile(t(a, "edited.md"), "line 1\nline 2\nline 3\n");
    expect((await sync(a, envA)).code).toBe(0);
    expect((await sync(b, envB)).code).toBe(0);
    // Queued while the server is away: an edit, a delete, a rename.
    await server.stop();
    await writeFile(t(a, "keep.md"), "v1 queued\n");
    await rm(t(a, "gone.md"));
    await rename(t(a, "old.md"), t(a, "new.md"));
    expect((await teammem(["push", "--dir", a, "team"], envA)).code).toBe(1);
    const ops = await Promise.all((await readdir(join(a, ".teammem", "outbox"))).map(async (n) => JSON.parse(await readFile(join(a, ".teammem", "outbox", n), "utf8")).operation));
    expect(ops.map((o) => [o.path, "delete" in o ? "delete" : "renameFrom" in o ? `rename from ${o.renameFrom}` : "put"]).sort()).toEqual([
      ["gone.md", "delete"],
      ["keep.md", "put"],
      ["new.md", "rename from old.md"],
    ]);
    // An edit not queued, and a teammate's edit of another line of that file.
    await writeFile(t(a, "edited.md"), "line 1 by alice\nline 2\nline 3\n");
    await server.start();
    await writeFile(t(b, "edited.md"), "line 1\nline 2\nline 3 by bob\n");
    expect((await sync(b, envB)).code).toBe(0);

    await damage(join(a, ".teammem", "state.json"), how);
    const run = await syncJson(a, envA);
    expect(run.code).toBe(0);
    expect(warnings(run.stderr)).toHaveLength(1);
    expect((await syncJson(b, envB)).code).toBe(0);
    for (const dir of [a, b]) {
      expect(await readFile(t(dir, "keep.md"), "utf8")).toBe("v1 queued\n");
      expect([existsSync(t(dir, "gone.md")), existsSync(t(dir, "old.md"))]).toEqual([false, false]);
      expect(await readFile(t(dir, "new.md"), "utf8")).toBe("moving\n");
      expect(await readFile(t(dir, "edited.md"), "utf8")).toBe("line 1 by alice\nline 2\nline 3 by bob\n"); // three-way, from the old base
    }
    expect(JSON.parse((await teammem(["status", "--dir", a, "--json"], envA)).stdout)).toMatchObject({ pending: [], modified: [], conflicts: [] });
  }, 400_000);

  it("every other rebuildable file damaged: dry run only warns, status moves each aside once, sync works", async () => {
    const { a, envA } = await setup("pglite");
    await writeFile(join(a, "team", "note.md"), "v0\n");
    expect((await sync(a, envA)).code).toBe(0);
    const state = join(a, ".teammem");
    const files = ["last-sync.json", "scan-policy.json", "held-back.json", "rejected.json", "bypasses.json", "outbox-seq.json", "not-written.json", "newer-on-server.json"];
    const damaged = new Map<string, string | Buffer>();
    for (const [i, name] of files.entries()) damaged.set(name, await damage(join(state, name), DAMAGE[i % DAMAGE.length]![1]));
    await writeFile(join(a, "team", "note.md"), "v1\n");

    const dry = await teammem(["sync", "--dir", a, "--dry-run"], envA);
    expect({ code: dry.code, stderr: dry.stderr }).toMatchObject({ code: 0 });
    expect(warnings(dry.stderr)).toHaveLength(files.length);
    for (const name of files) expect(await readFile(join(state, name))).toEqual(Buffer.from(damaged.get(name)!)); // a dry run writes nothing

    const status = await teammem(["status", "--dir", a], envA);
    expect(status.code).toBe(0);
    expect(warnings(status.stderr)).toHaveLength(files.length);
    for (const name of files) {
      const [moved, ...more] = await asides(state, name);
      expect({ name, more }).toEqual({ name, more: [] });
      expect(await readFile(join(state, moved!))).toEqual(Buffer.from(damaged.get(name)!));
    }
    expect(status.stdout).toContain("reconciliation with the server due since");

    const run = await teammem(["sync", "--dir", a], envA);
    expect({ code: run.code, warnings: warnings(run.stderr) }).toEqual({ code: 0, warnings: [] });
    expect(JSON.parse((await teammem(["status", "--dir", a, "--json"], envA)).stdout)).toMatchObject({ pending: [], modified: [], reconcile: null });
  }, 400_000);

  it("config.json, a queued operation, conflicts.json: every command stops naming the file and what to do; the file stays as it was", async () => {
    const { server, a, envA } = await setup("pglite");
    await writeFile(join(a, "team", "note.md"), "v0\n");
    expect((await sync(a, envA)).code).toBe(0);
    await server.stop();
    await writeFile(join(a, "team", "note.md"), "v1 queued\n");
    expect((await teammem(["push", "--dir", a, "team/note.md"], envA)).code).toBe(1); // unreachable: stays queued
    await server.start();
    const state = join(a, ".teammem");
    const [op] = await readdir(join(state, "outbox"));
    const cases: [string, string][] = [
      [join(state, "config.json"), "teammem init again"],
      [join(state, "outbox", op!), "the file in team/ still holds your edit"],
      [join(state, "conflicts.json"), "remove the markers"],
    ];
    const commands = [["status"], ["sync"], ["sync", "--dry-run"], ["push", "team/note.md"], ["restore", "team/note.md", "--version", "1"], ["resolve", "team/note.md"]];
    for (const [file, what] of cases) {
      const original = await readFile(file).catch(() => undefined);
      for (const [kind, how] of DAMAGE) {
        const damaged = await damage(file, how);
        // resolve reads no outbox, restore no conflicts: they answer for themselves.
        const reads = (c: string[]) => !(file.includes("outbox") && c[0] === "resolve") && !(file.endsWith("conflicts.json") && c[0] === "restore");
        for (const argv of commands.filter(reads)) {
          const r = await teammem([...argv, "--dir", a], envA);
          expect({ file, kind, argv, code: r.code }).toEqual({ file, kind, argv, code: 1 });
          expect({ file, kind, argv, stderr: r.stderr }).toEqual({
            file,
            kind,
            argv,
            stderr: expect.stringMatching(/^(teammem: warning: [^\n]*\n)*teammem: state file \S+ is unreadable: [^\n]+ \[state_unreadable\]\n$/),
          });
          expect(r.stderr).toContain(file);
          expect(r.stderr).toContain(what);
          expect(await readFile(file)).toEqual(Buffer.from(damaged)); // never moved or rewritten
        }
        const doctor = await teammem(["doctor", "--dir", a], envA);
        expect(doctor.code).toBe(1);
        expect(doctor.stdout).toContain(what);
      }
      if (original) await writeFile(file, original);
      else await writeFile(file, '{"entries": []}\n');
    }
    // Repaired: the queued edit is sent.
    expect((await sync(a, envA)).code).toBe(0);
    expect(JSON.parse((await teammem(["status", "--dir", a, "--json"], envA)).stdout)).toMatchObject({ pending: [], modified: [] });
  }, 600_000);
});
