import { execFileSync } from "node:child_process";
import { lstat, mkdir, mkdtemp, rm, symlink, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { sha256Hex } from "@teammem/protocol";
import { isSkipped, walkTeamScope } from "./scope.js";
import { fileStatOf, isSettled, RACY_MARGIN_NS } from "./local/file-stat.js";
import { layoutOf } from "./state/layout.js";
import { keepFileStats, SyncState } from "./state/sync-state.js";

async function memoryFolder() {
  const root = await mkdtemp(join(tmpdir(), "teammem-scope-"));
  onTestFinished(() => rm(root, { recursive: true, force: true }));
  await mkdir(join(root, "team", "sub"), { recursive: true });
  await mkdir(join(root, "notes"));
  return { root, layout: layoutOf(root) };
}

describe("walkTeamScope with the stat cache", () => {
  const hourAgo = new Date(Date.now() - 3600_000);

  it("does not read a file whose lstat is the one kept with its base, and reads it again once its stat changes", async () => {
    const { root, layout } = await memoryFolder();
    const file = join(root, "team", "a.md");
    await writeFile(file, "A\n");
    await utimes(file, hourAgo, hourAgo);
    // Its stat as a sync kept it (the walk itself keeps none yet: the ctime is fresh, see below).
    const kept = fileStatOf(await lstat(file, { bigint: true }));
    // The base names other content under the file's exact stat: the walk takes the base's word, unread.
    const state: SyncState = { version: 1, cursor: 1, bases: { "a.md": { version: 1, sha256: sha256Hex("other\n"), stat: kept } } };
    expect((await walkTeamScope(layout, undefined, state.bases)).files.get("a.md")).toEqual({ path: "a.md", sha256: sha256Hex("other\n") });
    // Same size, mtime set back: the ctime (and inode, after an editor's atomic save) still tells.
    do {
      await writeFile(file, "B\n");
      await utimes(file, hourAgo, hourAgo);
    } while (String((await lstat(file, { bigint: true })).ctimeNs) === kept.ctimeNs); // until the clock ticked
    expect((await walkTeamScope(layout, undefined, state.bases)).files.get("a.md")).toMatchObject({ content: "B\n", sha256: sha256Hex("B\n") });
  });

  it("keeps no stat for a file modified within the racy margin before the walk, so it is hashed again next time", async () => {
    const { root, layout } = await memoryFolder();
    await writeFile(join(root, "team", "new.md"), "N\n");
    const scope = await walkTeamScope(layout, undefined, {});
    expect(scope.files.get("new.md")).toEqual({ path: "new.md", content: "N\n", sha256: sha256Hex("N\n") });
    const state: SyncState = { version: 1, cursor: 1, bases: { "new.md": { version: 1, sha256: sha256Hex("N\n") } } };
    expect(keepFileStats(state, scope.files.values())).toBe(0);
    expect(state.bases["new.md"]).toEqual({ version: 1, sha256: sha256Hex("N\n") });
  });

  it("keeps no stat for a file whose mtime was set back but whose ctime is fresh (cp -p, rsync -t, touch -d)", async () => {
    const { root, layout } = await memoryFolder();
    await writeFile(join(root, "team", "copied.md"), "C\n");
    await utimes(join(root, "team", "copied.md"), hourAgo, hourAgo);
    // On a file system with whole-second timestamps, a second same-size copy with the same mtime
    // within that second would have this very stat: keeping it would hide that copy for good.
    expect((await walkTeamScope(layout, undefined, {})).files.get("copied.md")).toEqual({ path: "copied.md", content: "C\n", sha256: sha256Hex("C\n") });
    const hour = 3_600_000_000_000n;
    const now = BigInt(Date.now()) * 1_000_000n;
    const stat = { size: 2, mtimeNs: String(now - hour), ctimeNs: String(now), ino: "1" };
    expect(isSettled(stat, now + RACY_MARGIN_NS)).toBe(false);
    expect(isSettled(stat, now + RACY_MARGIN_NS + 1n)).toBe(true);
    expect(isSettled({ ...stat, ctimeNs: String(now - hour) }, now + RACY_MARGIN_NS)).toBe(true);
    expect(isSettled({ ...stat, mtimeNs: String(now), ctimeNs: String(now - hour) }, now + RACY_MARGIN_NS)).toBe(false);
  });

  it("keeps the stat of a file dated before 1970 in a state that loads again", async () => {
    const { root } = await memoryFolder();
    await writeFile(join(root, "team", "old.md"), "old\n");
    await utimes(join(root, "team", "old.md"), new Date(-86_400_000), new Date(-86_400_000));
    const state: SyncState = { version: 1, cursor: 1, bases: { "old.md": { version: 1, sha256: sha256Hex("old\n") } } };
    const file = { path: "old.md", sha256: sha256Hex("old\n"), stat: fileStatOf(await lstat(join(root, "team", "old.md"), { bigint: true })) };
    expect(keepFileStats(state, [file])).toBe(1);
    expect(state.bases["old.md"]!.stat!.mtimeNs).toMatch(/^-\d+$/);
    expect(SyncState.parse(JSON.parse(JSON.stringify(state)))).toEqual(state);
  });

  it("keeps a read file's stat only with a base holding the same content", async () => {
    const { root } = await memoryFolder();
    const files = new Map<string, { path: string; sha256: string; stat: ReturnType<typeof fileStatOf> }>();
    for (const name of ["same.md", "edited.md", "new.md"]) {
      await writeFile(join(root, "team", name), `${name}\n`);
      files.set(name, { path: name, sha256: sha256Hex(`${name}\n`), stat: fileStatOf(await lstat(join(root, "team", name), { bigint: true })) });
    }
    const scope = { files };
    const state: SyncState = {
      version: 1,
      cursor: 3,
      bases: { "same.md": { version: 1, sha256: sha256Hex("same.md\n") }, "edited.md": { version: 2, sha256: sha256Hex("before\n") } },
    };
    expect(keepFileStats(state, scope.files.values())).toBe(1);
    expect(state.bases).toEqual({
      "same.md": { version: 1, sha256: sha256Hex("same.md\n"), stat: scope.files.get("same.md")!.stat },
      "edited.md": { version: 2, sha256: sha256Hex("before\n") },
    });
  });
});

describe("walkTeamScope", () => {
  it("returns the regular files under team/ by entry path, with content and sha256", async () => {
    const { root, layout } = await memoryFolder();
    await writeFile(join(root, "team", "a.md"), "A\n");
    await writeFile(join(root, "team", "sub", "b.md"), "B\n");
    await writeFile(join(root, "notes", "private.md"), "private\n");
    await writeFile(join(root, "top.md"), "private too\n");
    const scope = await walkTeamScope(layout);
    expect([...scope.files.values()]).toEqual([
      { path: "a.md", content: "A\n", sha256: sha256Hex("A\n") },
      { path: "sub/b.md", content: "B\n", sha256: sha256Hex("B\n") },
    ]);
    expect(scope.skipped).toEqual([]);
  });

  it("under prefixes, reads only those files and folders, and meets symlinked or missing folders on the way as the full walk does", async () => {
    const { root, layout } = await memoryFolder();
    await writeFile(join(root, "team", "a.md"), "A\n");
    await writeFile(join(root, "team", "sub", "b.md"), "B\n");
    await mkdir(join(root, "team", "sub", "deep"));
    await writeFile(join(root, "team", "sub", "deep", "c.md"), "C\n");
    await writeFile(join(root, "notes", "private.md"), "private\n");
    await symlink("../notes", join(root, "team", "linked"));
    const scope = await walkTeamScope(layout, ["sub/deep", "sub/deep/c.md", "a.md", "gone/x.md", "linked/private.md", "a.md/under-a-file.md"]);
    expect([...scope.files.keys()].sort()).toEqual(["a.md", "sub/deep/c.md"]);
    expect(scope.skipped).toEqual([{ path: "team/linked", reason: "symlink (not followed)", symlink: true }]);
    expect(isSkipped(scope, "linked/private.md")).toBe(true); // not a delete
    expect(isSkipped(scope, "gone/x.md")).toBe(false); // absent: a delete
    expect([...(await walkTeamScope(layout, ["sub", ""])).files.keys()].sort()).toEqual(["a.md", "sub/b.md", "sub/deep/c.md"]); // "" is all
  });

  it("skips symlinks to files and folders outside team/ and reports them", async () => {
    const { root, layout } = await memoryFolder();
    await writeFile(join(root, "notes", "private.md"), "private\n");
    await symlink(join(root, "notes", "private.md"), join(root, "team", "link.md"));
    await symlink("../notes", join(root, "team", "notes-link"));
    const scope = await walkTeamScope(layout);
    expect(scope.files.size).toBe(0);
    expect(scope.skipped).toEqual([
      { path: "team/link.md", reason: "symlink (not followed)", symlink: true },
      { path: "team/notes-link", reason: "symlink (not followed)", symlink: true },
    ]);
    expect(isSkipped(scope, "link.md")).toBe(true);
    expect(isSkipped(scope, "notes-link/private.md")).toBe(true);
    expect(isSkipped(scope, "other.md")).toBe(false);
  });

  it("skips a team/ folder that is itself a symlink, and treats nothing in it as deleted", async () => {
    const root = await mkdtemp(join(tmpdir(), "teammem-scope-"));
    onTestFinished(() => rm(root, { recursive: true, force: true }));
    await mkdir(join(root, "notes"));
    await writeFile(join(root, "notes", "x.md"), "x\n");
    await symlink(join(root, "notes"), join(root, "team"));
    const scope = await walkTeamScope(layoutOf(root));
    expect(scope.files.size).toBe(0);
    expect(scope.skipped).toEqual([{ path: "team", reason: "symlink (not followed)", symlink: true }]);
    expect(isSkipped(scope, "x.md")).toBe(true);
  });

  it("reports names the protocol refuses (reserved .git, .teammem, .teammem-tmp-* too), special files and non-UTF-8 files", async () => {
    const { root, layout } = await memoryFolder();
    await writeFile(join(root, "team", "back\\slash.md"), "x");
    await writeFile(join(root, "team", "binary.bin"), Buffer.from([0xff, 0xfe, 0x00]));
    await writeFile(join(root, "team", ".teammem-tmp-0123"), "half-written");
    await mkdir(join(root, "team", "sub", ".git"));
    await writeFile(join(root, "team", "sub", ".git", "config"), "[core]\n");
    await mkdir(join(root, "team", ".teammem"));
    await writeFile(join(root, "team", ".teammem", "config.json"), "{}");
    execFileSync("mkfifo", [join(root, "team", "pipe")]);
    const scope = await walkTeamScope(layout);
    expect(scope.files.size).toBe(0);
    const reserved = "invalid path: path must not contain a '.git', '.teammem' or '.teammem-tmp-*' segment";
    expect(scope.skipped).toEqual([
      { path: "team/.teammem", reason: reserved, symlink: false },
      { path: "team/.teammem-tmp-0123", reason: "invalid path: a teammem temporary file (left by an interrupted write; safe to delete)", symlink: false },
      { path: "team/back\\slash.md", reason: "invalid path: path must use '/' as separator, not '\\'", symlink: false },
      { path: "team/binary.bin", reason: "not UTF-8 text", symlink: false },
      { path: "team/pipe", reason: "not a regular file", symlink: false },
      { path: "team/sub/.git", reason: reserved, symlink: false },
    ]);
    expect(isSkipped(scope, ".git/config")).toBe(false);
    expect(isSkipped(scope, "sub/.git/config")).toBe(true);
  });

  it("skips and reports names holding a bidi control or an invisible character, naming the code point and a name to rename to (try17 M4)", async () => {
    const { root, layout } = await memoryFolder();
    const rlo = String.fromCodePoint(0x202e);
    const zwsp = String.fromCodePoint(0x200b);
    await mkdir(join(root, "team", "a", "team"), { recursive: true });
    await writeFile(join(root, "team", "a", "team", `${rlo}evil.md`), "hi\n");
    await mkdir(join(root, "team", `dir${zwsp}`));
    await writeFile(join(root, "team", `dir${zwsp}`, "inner.md"), "inner\n");
    await writeFile(join(root, "team", `${zwsp}`), "only invisible\n");
    await writeFile(join(root, "team", "ok.md"), "ok\n");
    const scope = await walkTeamScope(layout);
    expect([...scope.files.keys()]).toEqual(["ok.md"]);
    // Shown escaped (5c22844, try18 F12): a bidi control would reverse the rest of the line, an
    // invisible character would not show at all; listed in the order of the shown names.
    expect(scope.skipped).toEqual([
      { path: "team/\\u200b", reason: expect.stringMatching(/U\+200B ZERO WIDTH SPACE.*rename the file without it to sync it$/), symlink: false }, // no valid name without it
      {
        path: "team/a/team/\\u202eevil.md",
        reason: expect.stringMatching(/^invalid path: path holds U\+202E RIGHT-TO-LEFT OVERRIDE, a bidi control: .*, e\.g\. to team\/a\/team\/evil\.md, to sync it$/),
        symlink: false,
      },
      { path: "team/dir\\u200b", reason: expect.stringMatching(/^invalid path: path holds U\+200B ZERO WIDTH SPACE, an invisible character: .*, e\.g\. to team\/dir, to sync it$/), symlink: false },
    ]);
    expect(isSkipped(scope, `dir${zwsp}/inner.md`)).toBe(true);
  });

  it("skips and reports names Windows cannot create (device names, a trailing space or dot), with a name to rename to (try17 L3)", async () => {
    const { root, layout } = await memoryFolder();
    await writeFile(join(root, "team", "CON.md"), "hi\n");
    await writeFile(join(root, "team", "trail."), "hi\n");
    await mkdir(join(root, "team", "aux"));
    await writeFile(join(root, "team", "aux", "inner.md"), "inner\n");
    await writeFile(join(root, "team", "ok.md"), "ok\n");
    await writeFile(join(root, "team", "trail .md"), "a space before the extension is fine\n");
    const scope = await walkTeamScope(layout);
    expect([...scope.files.keys()].sort()).toEqual(["ok.md", "trail .md"]);
    expect(scope.skipped).toEqual([
      { path: "team/CON.md", reason: expect.stringMatching(/^invalid path: path holds a name Windows reads as the device CON .*a teammate on Windows could not write it; rename it, e\.g\. to team\/CON_\.md, to sync it$/), symlink: false },
      { path: "team/aux", reason: expect.stringMatching(/the device AUX .*, e\.g\. to team\/aux_, to sync it$/), symlink: false },
      { path: "team/trail.", reason: expect.stringMatching(/^invalid path: path holds a name ending in a dot, .*, e\.g\. to team\/trail, to sync it$/), symlink: false },
    ]);
    expect(isSkipped(scope, "aux/inner.md")).toBe(true);
  });

  it("skips and reports names holding a character Windows does not allow (: * ? < > | \"), each with a name to rename to (try18 F11)", async () => {
    const { root, layout } = await memoryFolder();
    const reserved = [":", "*", "?", "<", ">", "|", '"'];
    for (const [i, ch] of reserved.entries()) await writeFile(join(root, "team", `n${i}${ch}x.md`), "hi\n");
    await mkdir(join(root, "team", "what?"));
    await writeFile(join(root, "team", "what?", "inner.md"), "inner\n");
    await writeFile(join(root, "team", "ok.md"), "ok\n");
    const scope = await walkTeamScope(layout);
    expect([...scope.files.keys()]).toEqual(["ok.md"]);
    const message = (ch: string) => `path holds '${ch}', a character Windows does not allow in file names (: * ? < > | "): a teammate on Windows could not write it; rename it`;
    expect(scope.skipped).toEqual(
      [
        ...reserved.map((ch, i) => ({ path: `team/n${i}${ch}x.md`, reason: `invalid path: ${message(ch)}, e.g. to team/n${i}_x.md, to sync it`, symlink: false })),
        { path: "team/what?", reason: `invalid path: ${message("?")}, e.g. to team/what_, to sync it`, symlink: false },
      ].sort((a, b) => (a.path < b.path ? -1 : 1)),
    );
    expect(isSkipped(scope, "what?/inner.md")).toBe(true);
  });

  it("skips and reports file and folder names that are not UTF-8 (never read, nothing under them counts as deleted), and still lists the rest", async () => {
    const { root, layout } = await memoryFolder();
    const teamBytes = Buffer.from(join(root, "team") + "/");
    // Names as raw bytes: 0xff never occurs in UTF-8, so no decoded string names these files.
    await writeFile(Buffer.concat([teamBytes, Buffer.from([0x62, 0x61, 0x64, 0xff, 0x2e, 0x6d, 0x64])]), "secret-free but unnamed\n");
    const folder = Buffer.concat([teamBytes, Buffer.from([0x64, 0x69, 0x72, 0xfe])]);
    await mkdir(folder);
    await writeFile(Buffer.concat([folder, Buffer.from("/inner.md")]), "inner\n");
    await writeFile(join(root, "team", "ok.md"), "ok\n");
    const scope = await walkTeamScope(layout);
    expect([...scope.files.keys()]).toEqual(["ok.md"]);
    expect(scope.skipped).toEqual([
      { path: "team/bad\uFFFD.md", reason: "invalid path: the name is not UTF-8", symlink: false },
      { path: "team/dir\uFFFD", reason: "invalid path: the name is not UTF-8", symlink: false },
    ]);
    expect(isSkipped(scope, "dir\uFFFD/inner.md")).toBe(true);
  });

  it("returns an empty scope when team/ does not exist", async () => {
    const root = await mkdtemp(join(tmpdir(), "teammem-scope-"));
    onTestFinished(() => rm(root, { recursive: true, force: true }));
    expect(await walkTeamScope(layoutOf(root))).toEqual({ root: "missing", files: new Map(), skipped: [], skippedEntryPaths: new Set() });
  });
});
