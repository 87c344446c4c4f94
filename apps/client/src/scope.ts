/**
 * The team scope: every regular file under `<root>/team/`, found with lstat and never through a
 * symlink. Every other file of the memory folder is private: this module (the only one that lists
 * files for requests) never opens anything outside `team/`.
 */
import type { Stats } from "node:fs";
import { lstat, readdir } from "node:fs/promises";
import { join } from "node:path";
import { checkEntryPath, type PathCheck } from "@teammem/protocol";
import { readTeamFile } from "./local/team-files.js";
import { TEMP_PREFIX } from "./state/atomic.js";
import { displayPath, type Layout } from "./state/layout.js";

export interface TeamFile {
  /** Entry path: relative to `team/`, `/`-separated, valid by `checkEntryPath`. */
  readonly path: string;
  readonly content: string;
  readonly sha256: string;
}

/** A team-scope name that is not synced, and why (shown by `status`). `path` is relative to the memory folder. */
export interface SkippedPath {
  readonly path: string;
  readonly reason: string;
}

/** `prefixes` without those lying under another one (so no subtree is walked twice). */
function outermost(prefixes: readonly string[]): string[] {
  const sorted = [...new Set(prefixes)].sort();
  return sorted.filter((p) => !sorted.some((q) => q !== p && p.startsWith(`${q}/`)));
}

/** What `team/` itself is: a real folder, absent, or something not walked (a symlink, a file...). */
export type TeamRoot = "folder" | "missing" | "symlink" | "not a folder";

export interface TeamScope {
  readonly root: TeamRoot;
  /** By entry path. */
  readonly files: Map<string, TeamFile>;
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

/**
 * Walks `team/`, reading each regular file; symlinks, special files and invalid names are skipped.
 * `under` (entry paths of files or folders; "" is everything) restricts the walk to those subtrees
 * (`push PATH`, `watch`: a few files of a large folder): files elsewhere are then not listed, so
 * the caller must look at paths under `under` only.
 */
export async function walkTeamScope(layout: Layout, under?: readonly string[]): Promise<TeamScope> {
  const root = await teamRootOf(layout);
  const scope: TeamScope = { root, files: new Map(), skipped: [], skippedEntryPaths: new Set() };
  if (root === "missing") return scope;
  if (root !== "folder") {
    scope.skipped.push({ path: "team", reason: root === "symlink" ? "symlink (not followed)" : "not a folder" });
    scope.skippedEntryPaths.add(""); // the whole scope: nothing in it counts as deleted
    return scope;
  }
  if (under === undefined || under.includes("")) await walk(layout, "", scope);
  else for (const prefix of outermost(under)) await walkUnder(layout, prefix, scope);
  scope.skipped.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return scope;
}

/**
 * Why a name the protocol refuses is skipped. Reserved segments (`.git`, `.teammem`,
 * `.teammem-tmp-*`) are reported like every other invalid name: never synced, and never taken for
 * a delete of what the server holds.
 */
function invalidReason(name: string, check: PathCheck): string {
  if (name.toLowerCase().startsWith(TEMP_PREFIX)) return "invalid path: a teammem temporary file (left by an interrupted write; safe to delete)";
  return `invalid path: ${check.ok ? "not NFC-normalised" : check.message}`;
}

/**
 * Walks folder `relDir` of `team/`. Names are read as bytes: a name that is not UTF-8 cannot be an
 * entry path (nor be opened by its decoded form), so it is skipped and reported, never read; a name
 * gone between the listing and its lstat (deleted meanwhile) is absent, like a file never there.
 */
async function walk(layout: Layout, relDir: string, scope: TeamScope): Promise<void> {
  const names = (await readdir(join(layout.team, relDir), { encoding: "buffer" }))
    .map((bytes) => ({ bytes, name: bytes.toString("utf8") }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const { bytes, name } of names) {
    const rel = relDir ? `${relDir}/${name}` : name;
    if (!Buffer.from(name, "utf8").equals(bytes)) {
      scope.skipped.push({ path: displayPath(rel), reason: "invalid path: the name is not UTF-8" });
      scope.skippedEntryPaths.add(rel);
      continue;
    }
    const st = await lstatIfPresent(layout, rel);
    if (st !== undefined) await visit(layout, rel, st, scope);
  }
}

/** One name met by the walk (`st`: its lstat): a folder is walked, a regular file read, anything else skipped. */
async function visit(layout: Layout, rel: string, st: Stats, scope: TeamScope): Promise<void> {
  const name = rel.slice(rel.lastIndexOf("/") + 1);
  const skip = (reason: string) => {
    scope.skipped.push({ path: displayPath(rel), reason });
    scope.skippedEntryPaths.add(rel);
  };
  if (st.isSymbolicLink()) return skip("symlink (not followed)");
  const check = checkEntryPath(rel);
  if (!check.ok || check.path !== rel) return skip(invalidReason(name, check));
  if (st.isDirectory()) return walk(layout, rel, scope);
  if (!st.isFile()) return skip("not a regular file");
  const file = await readTeamFile(layout, rel);
  if (file.kind === "file") scope.files.set(rel, { path: rel, content: file.content, sha256: file.sha256 });
  else if (file.kind === "unsafe") skip(file.reason);
}

/** lstat of `team/<rel>`, or undefined when nothing is there. */
async function lstatIfPresent(layout: Layout, rel: string): Promise<Stats | undefined> {
  try {
    return await lstat(join(layout.team, rel));
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
async function walkUnder(layout: Layout, prefix: string, scope: TeamScope): Promise<void> {
  const segments = prefix.split("/");
  for (let i = 1; i <= segments.length; i++) {
    const rel = segments.slice(0, i).join("/");
    const st = await lstatIfPresent(layout, rel);
    if (st === undefined) return;
    const check = checkEntryPath(rel);
    const walkedInto = st.isDirectory() && !st.isSymbolicLink() && check.ok && check.path === rel;
    if (i === segments.length || !walkedInto) {
      // The prefix itself, or an ancestor the full walk would not enter: skipped there, or a file.
      if (i === segments.length || st.isSymbolicLink() || !check.ok || check.path !== rel) await visit(layout, rel, st, scope);
      return;
    }
  }
}
