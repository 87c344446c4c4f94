/**
 * The file watcher of `teammem watch` (chokidar) on real folders: what it reports (hints the engine
 * rescans). Waits poll for an outcome; nothing asserts how long anything took. (A team/ replaced
 * while watched is the Watch's job: it rescans every 10 s, test/client/watch.test.ts.)
 */
import { mkdir, mkdtemp, rename, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { TEMP_PREFIX } from "../state/atomic.js";
import { layoutOf } from "../state/layout.js";
import { TeamWatcher } from "./team-watcher.js";

async function until<T>(what: string, check: () => T | Promise<T>, limitMs = 10_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A started watcher of a fresh memory folder's team/ (holding `files` first); every reported path in `seen`. */
async function watching(files: Record<string, string> = {}) {
  const root = await mkdtemp(join(tmpdir(), "teammem-watcher-"));
  onTestFinished(() => rm(root, { recursive: true, force: true }));
  const layout = layoutOf(root);
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(layout.team, path, ".."), { recursive: true });
    await writeFile(join(layout.team, path), content);
  }
  await mkdir(layout.team, { recursive: true });
  const seen = new Set<string>();
  const errors: Error[] = [];
  const watcher = new TeamWatcher(layout, { quietMs: 20, maxWaitMs: 100, emptySettleMs: 200, onBatch: (b) => b.forEach((p) => seen.add(p)), onError: (e) => errors.push(e) });
  await watcher.start();
  onTestFinished(() => watcher.stop());
  return { layout, team: layout.team, root, seen, errors, watcher, saw: (path: string) => until(`${path} reported`, () => seen.has(path)) };
}

describe("TeamWatcher", () => {
  it("reports files written, removed and renamed, in folders there at the start and in folders created or moved in later; never its temporary files", async () => {
    const w = await watching({ "a.md": "a\n", "docs/b.md": "b\n" });
    await writeFile(join(w.team, "a.md"), "a2\n");
    await w.saw("a.md");
    await writeFile(join(w.team, "docs", "b.md"), "b2\n");
    await w.saw("docs/b.md");
    await rm(join(w.team, "docs", "b.md"));
    await until("the delete", () => w.seen.has("docs/b.md"));
    // A folder created now, files written in it at once: the folder is reported once watched, its later files by name.
    await mkdir(join(w.team, "new", "inner"), { recursive: true });
    await writeFile(join(w.team, "new", "inner", "c.md"), "c\n");
    await w.saw("new");
    await writeFile(join(w.team, "new", "inner", "d.md"), "d\n");
    await w.saw("new/inner/d.md");
    // A folder moved in from outside team/, and one renamed inside it: both reported, their files watched at the new path.
    await mkdir(join(w.root, "outside"));
    await writeFile(join(w.root, "outside", "e.md"), "e\n");
    await rename(join(w.root, "outside"), join(w.team, "moved-in"));
    await w.saw("moved-in");
    await writeFile(join(w.team, "moved-in", "f.md"), "f\n");
    await w.saw("moved-in/f.md");
    await rename(join(w.team, "new"), join(w.team, "renamed"));
    await w.saw("renamed");
    await until("the old folder", () => w.seen.has("new"));
    await writeFile(join(w.team, "renamed", "inner", "g.md"), "g\n");
    await w.saw("renamed/inner/g.md");
    // The engine's temporary files are not changes.
    await writeFile(join(w.team, `${TEMP_PREFIX}0123`), "tmp\n");
    await writeFile(join(w.team, "last.md"), "last\n");
    await w.saw("last.md");
    expect([...w.seen].filter((p) => p.includes(TEMP_PREFIX))).toEqual([]);
    expect(w.errors).toEqual([]);
  });

  it("reports a symlink without following it", async () => {
    const w = await watching();
    await mkdir(join(w.root, "elsewhere"));
    await symlink(join(w.root, "elsewhere"), join(w.team, "link"));
    await w.saw("link");
    await writeFile(join(w.root, "elsewhere", "x.md"), "x\n");
    await writeFile(join(w.team, "after.md"), "after\n");
    await w.saw("after.md");
    expect(w.seen.has("link/x.md")).toBe(false);
  });

  it("reports a file found empty only once it stayed empty for the settle time (truncate, then write)", async () => {
    const w = await watching({ "n.md": "n\n" });
    await writeFile(join(w.team, "n.md"), "");
    await writeFile(join(w.team, "other.md"), "o\n");
    await w.saw("other.md");
    expect(w.seen.has("n.md")).toBe(false);
    await w.saw("n.md");
  });
});
