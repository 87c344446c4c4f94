/**
 * try16 F15: the `team/` subfolder of a memory folder given as the memory folder (`--dir ~/mem/team`,
 * or run from inside it) is refused with `dir_is_team_scope`, naming the memory folder to use; `init`
 * of a folder inside another memory folder is refused with `dir_in_memory_folder`. Nothing is created.
 */
import { existsSync } from "node:fs";
import { mkdir, readdir, symlink, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { teammem, tempDir } from "../support/cli.js";

/** `teammem init` of `dir` without contacting a server (nothing here needs one). */
const init = (dir: string, ...extra: string[]) =>
  teammem(["init", "--dir", dir, "--server", "http://127.0.0.1:8080", "--namespace", "acme", "--offline", ...extra]);

/** Every path under `root`, relative and sorted: what a refused command must leave as it was. */
async function tree(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true });
  return entries.map((e) => relative(root, join(root, e))).sort();
}

/** A temporary folder holding `mem`, a set-up memory folder with one team file. */
async function memoryFolder() {
  const tmp = await tempDir();
  onTestFinished(() => tmp.remove());
  const mem = join(tmp.path, "mem");
  expect((await init(mem)).code).toBe(0);
  await writeFile(join(mem, "team", "notes.md"), "# notes\n");
  return { root: tmp.path, mem, team: join(mem, "team") };
}

const teamScope = (subject: string, mem: string, where = "is the team/ scope", fix = `--dir ${mem}`, tail = "") =>
  `teammem: ${subject} ${where} of the memory folder ${mem} (it holds .teammem), not a memory folder; ` +
  `give the memory folder itself: ${fix}${tail} [dir_is_team_scope]\n`;

describe("a memory folder's team/ given as the memory folder (try16 F15)", () => {
  it("init --dir <mem>/team exits 2 dir_is_team_scope naming <mem>, and creates no .teammem and no team/team/", async () => {
    const { root, mem, team } = await memoryFolder();
    const before = await tree(root);
    const r = await init(team, "--token", ["tok", "en"].join("-"));
    expect(r).toEqual({ code: 2, stdout: "", stderr: teamScope(`--dir ${team}`, mem, undefined, undefined, "; nothing was set up") });
    expect(existsSync(join(team, ".teammem"))).toBe(false);
    expect(existsSync(join(team, "team"))).toBe(false);
    expect(await tree(root)).toEqual(before);
  });

  it("init --dir of a folder under <mem>/team, existing or not, exits 2 dir_is_team_scope and creates nothing", async () => {
    const { root, mem, team } = await memoryFolder();
    await mkdir(join(team, "docs"));
    const before = await tree(root);
    for (const dir of [join(team, "docs"), join(team, "new", "deeper")]) {
      const r = await init(dir);
      expect(r).toEqual({ code: 2, stdout: "", stderr: teamScope(`--dir ${dir}`, mem, "is inside the team/ scope", undefined, "; nothing was set up") });
    }
    expect(await tree(root)).toEqual(before);
  });

  it.each([
    "sync",
    "sync --dry-run",
    "push team/notes.md",
    "status",
    "status --offline",
    "watch",
    "doctor",
    "check",
    "history team/notes.md",
    "diff team/notes.md",
    "restore team/notes.md --version 1",
    "resolve team/notes.md",
    "scan team/notes.md",
  ])("%s --dir <mem>/team exits 2 dir_is_team_scope naming <mem>, and changes nothing", async (command) => {
    const args = command.split(" ");
    const { root, mem, team } = await memoryFolder();
    const before = await tree(root);
    const r = await teammem([...args, "--dir", team], { TEAMMEM_TOKEN: ["tok", "en"].join("-") });
    expect(r).toEqual({ code: 2, stdout: "", stderr: teamScope(`--dir ${team}`, mem) });
    expect(await tree(root)).toEqual(before);
  });

  it("--json carries the code and the message on stdout", async () => {
    const { mem, team } = await memoryFolder();
    const r = await teammem(["status", "--json", "--dir", join(team, "sub")]);
    expect(r.code).toBe(2);
    const message = teamScope(`--dir ${join(team, "sub")}`, mem, "is inside the team/ scope").replace(/^teammem: | \[dir_is_team_scope\]\n$/g, "");
    expect(JSON.parse(r.stdout)).toEqual({ ok: false, error: { code: "dir_is_team_scope", message } });
  });

  it("run from inside <mem>/team without --dir, sync and status exit 2 saying to run in <mem>; scan there still finds <mem>", async () => {
    const { root, mem, team } = await memoryFolder();
    const before = await tree(root);
    const fix = `run teammem in ${mem}, or pass --dir ${mem}`;
    for (const command of ["sync", "status"]) {
      const r = await teammem([command], {}, { cwd: team });
      expect(r).toEqual({ code: 2, stdout: "", stderr: teamScope(`the current folder ${team}`, mem, undefined, fix) });
    }
    expect(await tree(root)).toEqual(before);
    // scan without --dir looks for the memory folder above the current folder: <mem>, as before.
    expect(await teammem(["scan", "notes.md"], {}, { cwd: team })).toEqual({ code: 0, stdout: "team/notes.md: no credentials found\n", stderr: "" });
  });

  it("a symlink to <mem>/team, and an agent's folder under it (--agent codex), are refused the same way", async () => {
    const { root, mem, team } = await memoryFolder();
    const link = join(root, "link");
    await symlink(team, link);
    expect(await teammem(["sync", "--dir", link])).toEqual({ code: 2, stdout: "", stderr: teamScope(`--dir ${link}`, mem) });
    const memories = join(team, "codex", "memories");
    const before = await tree(root);
    const r = await teammem(["init", "--agent", "codex", "--server", "http://127.0.0.1:8080", "--namespace", "acme", "--offline"], {
      CODEX_HOME: join(team, "codex"),
    });
    expect(r).toEqual({
      code: 2,
      stdout: "",
      stderr: teamScope(`the memory folder ${memories}`, mem, "is inside the team/ scope", undefined, "; nothing was set up"),
    });
    expect(await tree(root)).toEqual(before);
  });

  it("init --dir of a folder inside <mem>'s private files exits 2 dir_in_memory_folder naming <mem>, and creates nothing", async () => {
    const { root, mem } = await memoryFolder();
    await mkdir(join(mem, "private"));
    const before = await tree(root);
    for (const dir of [join(mem, "private"), join(mem, "new", "inner")]) {
      const r = await init(dir);
      expect(r).toEqual({
        code: 2,
        stdout: "",
        stderr:
          `teammem: --dir ${dir} is inside the memory folder ${mem} (it holds .teammem); a memory folder inside another one is refused: ` +
          `give that memory folder (its team/ folder is the synced scope): --dir ${mem}, or a folder outside it; nothing was set up [dir_in_memory_folder]\n`,
      });
    }
    expect(await tree(root)).toEqual(before);
  });

  it("keeps working: a memory folder named team inside no memory folder, a re-init, and a folder set up before its parent was", async () => {
    const tmp = await tempDir();
    onTestFinished(() => tmp.remove());
    const team = join(tmp.path, "team");
    expect((await init(team)).code).toBe(0);
    expect(existsSync(join(team, ".teammem", "config.json"))).toBe(true);
    expect((await teammem(["status", "--offline", "--dir", team])).code).toBe(0);
    expect((await init(team)).stdout).toContain(`updated ${team}`);

    // inner set up first, then its parent: inner lies in the parent's private files, and stays usable.
    const outer = join(tmp.path, "outer");
    const inner = join(outer, "inner");
    expect((await init(inner)).code).toBe(0);
    expect((await init(outer)).code).toBe(0);
    const again = await init(inner);
    expect([again.code, again.stderr]).toEqual([0, ""]);
    expect((await teammem(["status", "--offline", "--dir", inner])).code).toBe(0);
  });

  it("refuses a folder set up in <mem>/team before <mem> was: sync and re-init exit 2 naming <mem>", async () => {
    const tmp = await tempDir();
    onTestFinished(() => tmp.remove());
    const mem = join(tmp.path, "mem");
    const team = join(mem, "team");
    expect((await init(team)).code).toBe(0); // then fine: mem was no memory folder yet
    expect((await init(mem)).code).toBe(0);
    expect(await teammem(["sync", "--dir", team])).toEqual({ code: 2, stdout: "", stderr: teamScope(`--dir ${team}`, mem) });
    expect(await init(team)).toEqual({ code: 2, stdout: "", stderr: teamScope(`--dir ${team}`, mem, undefined, undefined, "; nothing was set up") });
  });
});
