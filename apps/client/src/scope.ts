/**
 * The team scope: every regular file under `<root>/team/`, found with lstat and never through a
 * symlink. Every other file of the memory folder is private: this module (the only one that lists
 * files for requests) never opens anything outside `team/`.
 */
import type { BigIntStats } from "node:fs";
import { lstat, readdir } from "node:fs/promises";
import { join } from "node:path";
import { checkEntryPath, isInvisibleCodePoint, windowsDeviceName, WINDOWS_RESERVED_CHARACTERS, type PathCheck } from "@teammem/protocol";
import { isSettled, nowNs, sameFileStat, type FileStat } from "./local/file-stat.js";
import { parentChecks, readTeamFile, type ParentChecks, type Unsafe } from "./local/team-files.js";
import { LEFTOVER_TEMP_NAME, TEMP_PREFIX, unlinkDurable } from "./state/atomic.js";
import { displayPath, type Layout } from "./state/layout.js";
import type { SyncState } from "./state/sync-state.js";

export interface TeamFile {
  /** Entry path: relative to `team/`, `/`-separated, valid by `checkEntryPath`. */
  readonly path: string;
  /**
   * The file's text; absent only when the walk was given the bases and the file's lstat equals
   * the stat kept with its base: the file then holds the base's content (`sha256`) and was not read.
   */
  readonly content?: string;
  readonly sha256: string;
  /**
   * For the stat cache (`local/file-stat.ts`): the stat the file had when read, when it may be
   * kept (its mtime settled before the walk began); absent when the file was not read.
   */
  readonly stat?: FileStat;
}

/** A team file that was read: its content is at hand. */
export type ReadTeamFile = TeamFile & { readonly content: string };

/** Files read (or stat-checked) at once by a walk: enough to keep the thread pool busy, few enough to bound open files. */
const WALK_CONCURRENCY = 16;

/** `fn` over `items`, at most `limit` at a time; results in the order of `items`. */
async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/**
 * A team-scope name that is not synced, and why (shown by `status`). `path` is relative to the
 * memory folder; `symlink` when it is, or lies under, a symlink (never followed).
 */
export interface SkippedPath extends Unsafe {
  readonly path: string;
}

/**
 * One line telling what a skipped path means (`push`, `watch`, `scan`), e.g. `team/notes.md: not
 * synced: symlink (not followed); a symlink in team/ is never followed, read, scanned or sent:
 * copy the file into team/ to share it`.
 */
export function skippedLine(s: SkippedPath): string {
  const symlink = s.symlink ? "; a symlink in team/ is never followed, read, scanned or sent: copy the file into team/ to share it" : "";
  return `${s.path}: not synced: ${s.reason}${symlink}`;
}

/** `prefixes` without those lying under another one (so no subtree is walked twice). */
function outermost(prefixes: readonly string[]): string[] {
  const sorted = [...new Set(prefixes)].sort();
  return sorted.filter((p) => !sorted.some((q) => q !== p && p.startsWith(`${q}/`)));
}

/** What `team/` itself is: a real folder, absent, or something not walked (a symlink, a file...). */
export type TeamRoot = "folder" | "missing" | "symlink" | "not a folder";

export interface TeamScope<F extends TeamFile = TeamFile> {
  readonly root: TeamRoot;
  /** By entry path. */
  readonly files: Map<string, F>;
  readonly skipped: SkippedPath[];
  /** Relative paths (files or folders) that exist locally but were skipped, so what lies there is not a delete. */
  readonly skippedEntryPaths: Set<string>;
}

/** Whether `entryPath` is, or lies inside, a skipped path (so its absence from `files` is not a delete). */
export function isSkipped(scope: TeamScope, entryPath: string): boolean {
  if (scope.skippedEntryPaths.has("")) return true;
  for (let p = entryPath; p; p = p.includes("/") ? p.slice(0, p.lastIndexOf("/")) : "") {
    if (scope.skippedEntryPaths.has(p)) return true;
  }
  return false;
}

/** What `team/` is, by lstat (a symlink is never followed). */
export async function teamRootOf(layout: Layout): Promise<TeamRoot> {
  try {
    const top = await lstat(layout.team);
    return top.isSymbolicLink() ? "symlink" : top.isDirectory() ? "folder" : "not a folder";
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return "missing";
    throw err;
  }
}

/** One walk: where it writes, the regular files found (read after the listing), its folder checks, the cached stats. */
interface Walk {
  readonly layout: Layout;
  readonly scope: TeamScope;
  /** Regular files with valid names, in walk order, with their lstat. */
  readonly found: { rel: string; st: BigIntStats }[];
  readonly checked: ParentChecks;
  readonly bases: SyncState["bases"] | undefined;
  /** Wall clock at the start (ns): stats of files changed after `startNs - margin` are not kept. */
  readonly startNs: bigint;
  /** The caller holds the folder's command lock: this client's leftover temporary files are removed, not reported. */
  readonly removeLeftovers: boolean;
}

/**
 * Walks `team/`, reading each regular file; symlinks, special files and invalid names are skipped.
 * `under` (entry paths of files or folders; "" is everything) restricts the walk to those subtrees
 * (`push PATH`, `watch`: a few files of a large folder): files elsewhere are then not listed, so
 * the caller must look at paths under `under` only.
 * `bases` (the sync state's): a file whose lstat (size, mtime, ctime, inode) equals the `stat`
 * kept with its base is listed with the base's sha256 and no content, without being read; every
 * other file is read, and listed with its `stat` when that may be kept (see `local/file-stat.ts`).
 * Files are read a few at a time ({@link WALK_CONCURRENCY}); `files` is in walk (path) order.
 * `removeLeftovers` (only for a caller holding the folder's command lock, under which every write
 * of a team file runs): a regular file named exactly as `writeFileAtomic`'s temporary files
 * ({@link LEFTOVER_TEMP_NAME}) is a write killed midway: it is removed instead of reported as
 * skipped (try22 T3); any other `.teammem-tmp-*` name is skipped and reported as before.
 */
export async function walkTeamScope(layout: Layout, under?: readonly string[]): Promise<TeamScope<ReadTeamFile>>;
export async function walkTeamScope(layout: Layout, under: readonly string[] | undefined, bases: SyncState["bases"], removeLeftovers?: boolean): Promise<TeamScope>;
export async function walkTeamScope(layout: Layout, under?: readonly string[], bases?: SyncState["bases"], removeLeftovers = false): Promise<TeamScope> {
  const startNs = nowNs();
  const root = await teamRootOf(layout);
  const scope: TeamScope = { root, files: new Map(), skipped: [], skippedEntryPaths: new Set() };
  if (root === "missing") return scope;
  if (root !== "folder") {
    scope.skipped.push(root === "symlink" ? { path: "team", reason: "symlink (not followed)", symlink: true } : { path: "team", reason: "not a folder", symlink: false });
    scope.skippedEntryPaths.add(""); // the whole scope: nothing in it counts as deleted
    return scope;
  }
  const w: Walk = { layout, scope, found: [], checked: parentChecks(), bases, startNs, removeLeftovers };
  if (under === undefined || under.includes("")) await walk(w, "");
  else for (const prefix of outermost(under)) await walkUnder(w, prefix);
  const read = await mapLimit(w.found, WALK_CONCURRENCY, ({ rel, st }) => readFound(w, rel, st));
  for (const [i, file] of read.entries()) {
    if (file && "reason" in file) skipPath(scope, w.found[i]!.rel, file.reason, file.symlink);
    else if (file) scope.files.set(file.path, file);
  }
  scope.skipped.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return scope;
}

function skipPath(scope: TeamScope, rel: string, reason: string, symlink = false): void {
  scope.skipped.push({ path: displayPath(rel), reason, symlink });
  scope.skippedEntryPaths.add(rel);
  // A name not in NFC stands for its NFC entry path too (where the file system opens one by the
  // other, as macOS does): that entry's absence from the walk is not a delete.
  const nfc = rel.normalize("NFC");
  if (nfc !== rel) scope.skippedEntryPaths.add(nfc);
}

/** A regular file found by the walk: from the stat cache, or read. Returns why it is skipped, or undefined when it is gone. */
async function readFound(w: Walk, rel: string, st: BigIntStats): Promise<TeamFile | Unsafe | undefined> {
  const base = w.bases?.[rel];
  if (base?.stat && base.sha256 !== null && sameFileStat(base.stat, st)) return { path: rel, sha256: base.sha256 };
  const file = await readTeamFile(w.layout, rel, w.checked);
  if (file.kind === "unsafe") return { reason: file.reason, symlink: file.symlink };
  if (file.kind === "absent") return undefined;
  return { path: rel, content: file.content, sha256: file.sha256, ...(isSettled(file.stat, w.startNs) ? { stat: file.stat } : {}) };
}

/**
 * Why a name the protocol refuses is skipped. Reserved segments (`.git`, `.teammem`,
 * `.teammem-tmp-*`) are reported like every other invalid name: never synced, and never taken for
 * a delete of what the server holds.
 */
function invalidReason(rel: string, check: PathCheck): string {
  const name = rel.slice(rel.lastIndexOf("/") + 1);
  if (name.toLowerCase().startsWith(TEMP_PREFIX)) return "invalid path: a teammem temporary file (left by an interrupted write; safe to delete)";
  if (!check.ok && (check.rule === "bidi_control" || check.rule === "invisible_character")) return invisibleReason(rel, check.message);
  if (!check.ok && (check.rule === "windows_device_name" || check.rule === "trailing_dot_or_space" || check.rule === "windows_reserved_character")) return windowsReason(rel, check.message);
  return check.ok ? notNfcReason(rel) : `invalid path: ${check.message}`;
}

/**
 * Why a team name holding a bidi control or another invisible character is skipped (try17 M4): the
 * protocol's message (which names the code point), and the name without such characters to rename
 * it to, when that name is valid.
 */
function invisibleReason(rel: string, message: string): string {
  const visible = [...rel].filter((c) => !isInvisibleCodePoint(c.codePointAt(0)!)).join("");
  const hint = checkEntryPath(visible).ok ? `, e.g. to ${displayPath(visible)},` : "";
  return `invalid path: ${message}${hint} to sync it`;
}

/**
 * Why a team name Windows cannot create is skipped (try17 L3, try18 F11): the protocol's message,
 * and a name to rename it to, when that one is valid: a device name gets a `_` after the device
 * (`CON.md` to `CON_.md`), each character Windows does not allow becomes `_` (`what?.md` to
 * `what_.md`), a trailing space or dot is dropped (`notes.` to `notes`).
 */
function windowsReason(rel: string, message: string): string {
  const portable = rel
    .split("/")
    .map((segment) => {
      const device = windowsDeviceName(segment);
      const named = device === null ? segment : `${segment.slice(0, device.length)}_${segment.slice(device.length)}`;
      return [...named].map((c) => (WINDOWS_RESERVED_CHARACTERS.includes(c) ? "_" : c)).join("").replace(/[. ]+$/, "");
    })
    .join("/");
  const hint = checkEntryPath(portable).ok ? `, e.g. to ${displayPath(portable)},` : "";
  return `invalid path: ${message}${hint} to sync it`;
}

/** `U+00E9`. */
const codePoint = (c: string) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;

/**
 * Why a team name that is not in Unicode NFC is skipped, and what to do (try15 F10): entry paths
 * are NFC (`checkEntryPath`), and macOS may write names decomposed (NFD: "é" as "e" + U+0301).
 * Sending it under its NFC name would make a teammate's copy, or this folder's next pull, a second
 * file beside it on a file system that keeps both forms apart, so the user renames it. Names the
 * first composed character written decomposed, by code points (the two forms look the same).
 * @param rel the name relative to `team/`, as read from the disk.
 */
export function notNfcReason(rel: string): string {
  const nfc = rel.normalize("NFC");
  const composed = [...nfc].find((c) => c.normalize("NFD") !== c && rel.includes(c.normalize("NFD")));
  const example = composed ? ` ("${composed}" is written as ${[...composed.normalize("NFD")].map(codePoint).join(" + ")}, not ${codePoint(composed)})` : "";
  return (
    `invalid path: the name is not in composed Unicode (NFC)${example}, as the server stores names; macOS may write names decomposed (NFD). ` +
    `Rename it to its NFC form ${displayPath(nfc)} to sync it`
  );
}

/**
 * Walks folder `relDir` of `team/`. Names are read as bytes: a name that is not UTF-8 cannot be an
 * entry path (nor be opened by its decoded form), so it is skipped and reported, never read; a name
 * gone between the listing and its lstat (deleted meanwhile) is absent, like a file never there.
 */
async function walk(w: Walk, relDir: string): Promise<void> {
  const names = (await readdir(join(w.layout.team, relDir), { encoding: "buffer" }))
    .map((bytes) => {
      const name = bytes.toString("utf8");
      return { rel: relDir ? `${relDir}/${name}` : name, utf8: Buffer.from(name, "utf8").equals(bytes) };
    })
    .sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
  // The lstats of one folder's names a few at a time; the names are then met in order.
  const stats = await mapLimit(names, WALK_CONCURRENCY, ({ rel, utf8 }) => (utf8 ? lstatIfPresent(w.layout, rel) : Promise.resolve(null)));
  for (const [i, st] of stats.entries()) {
    const { rel } = names[i]!;
    if (st === null) skipPath(w.scope, rel, "invalid path: the name is not UTF-8");
    else if (st !== undefined) await visit(w, rel, st);
  }
}

/** One name met by the walk (`st`: its lstat): a folder is walked, a regular file noted to be read, anything else skipped. */
async function visit(w: Walk, rel: string, st: BigIntStats): Promise<void> {
  if (st.isSymbolicLink()) return skipPath(w.scope, rel, "symlink (not followed)", true);
  if (w.removeLeftovers && st.isFile() && LEFTOVER_TEMP_NAME.test(rel.slice(rel.lastIndexOf("/") + 1)) && (await removedLeftover(w.layout, rel))) return;
  const check = checkEntryPath(rel);
  if (!check.ok || check.path !== rel) return skipPath(w.scope, rel, invalidReason(rel, check));
  if (st.isDirectory()) return walk(w, rel);
  if (!st.isFile()) return skipPath(w.scope, rel, "not a regular file");
  w.found.push({ rel, st });
}

/** Removes the leftover temporary file `team/<rel>`; false when it cannot be (then it is reported as skipped). */
async function removedLeftover(layout: Layout, rel: string): Promise<boolean> {
  try {
    await unlinkDurable(join(layout.team, ...rel.split("/")));
    return true;
  } catch {
    return false;
  }
}

/** lstat of `team/<rel>`, or undefined when nothing is there. */
async function lstatIfPresent(layout: Layout, rel: string): Promise<BigIntStats | undefined> {
  try {
    return await lstat(join(layout.team, rel), { bigint: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw err;
  }
}

/**
 * The part of the walk under entry path `prefix` (a file or a folder). Each folder on the way is
 * met as the full walk would meet it: a symlink or an invalid name is skipped (so nothing under it
 * counts as deleted); an absent one, or a file where a folder would be, leaves nothing under it.
 */
async function walkUnder(w: Walk, prefix: string): Promise<void> {
  const segments = prefix.split("/");
  for (let i = 1; i <= segments.length; i++) {
    const rel = segments.slice(0, i).join("/");
    const st = await lstatIfPresent(w.layout, rel);
    if (st === undefined) return;
    const check = checkEntryPath(rel);
    const walkedInto = st.isDirectory() && !st.isSymbolicLink() && check.ok && check.path === rel;
    if (i === segments.length || !walkedInto) {
      // The prefix itself, or an ancestor the full walk would not enter: skipped there, or a file.
      if (i === segments.length || st.isSymbolicLink() || !check.ok || check.path !== rel) await visit(w, rel, st);
      return;
    }
  }
}
