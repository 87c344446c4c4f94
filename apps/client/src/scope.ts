/**
 * The team scope: every regular file under `<root>/team/`, found with lstat and never through a
 * symlink. Every other file of the memory folder is private: this module (the only one that lists
 * files for requests) never opens anything outside `team/`.
 */
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

/** Walks `team/`, reading each regular file; symlinks, special files and invalid names are skipped. */
export async function walkTeamScope(layout: Layout): Promise<TeamScope> {
  const root = await teamRootOf(layout);
  const scope: TeamScope = { root, files: new Map(), skipped: [], skippedEntryPaths: new Set() };
  if (root === "missing") return scope;
  if (root !== "folder") {
    scope.skipped.push({ path: "team", reason: root === "symlink" ? "symlink (not followed)" : "not a folder" });
    scope.skippedEntryPaths.add(""); // the whole scope: nothing in it counts as deleted
    return scope;
  }
  await walk(layout, "", scope);
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

async function walk(layout: Layout, relDir: string, scope: TeamScope): Promise<void> {
  const names = (await readdir(join(layout.team, relDir))).sort();
  for (const name of names) {
    const rel = relDir ? `${relDir}/${name}` : name;
    const shown = displayPath(rel);
    const st = await lstat(join(layout.team, rel));
    if (st.isSymbolicLink()) {
      scope.skipped.push({ path: shown, reason: "symlink (not followed)" });
      scope.skippedEntryPaths.add(rel);
      continue;
    }
    const check = checkEntryPath(rel);
    if (!check.ok || check.path !== rel) {
      scope.skipped.push({ path: shown, reason: invalidReason(name, check) });
      scope.skippedEntryPaths.add(rel);
      continue;
    }
    if (st.isDirectory()) {
      await walk(layout, rel, scope);
      continue;
    }
    if (!st.isFile()) {
      scope.skipped.push({ path: shown, reason: "not a regular file" });
      scope.skippedEntryPaths.add(rel);
      continue;
    }
    const file = await readTeamFile(layout, rel);
    if (file.kind === "file") scope.files.set(rel, { path: rel, content: file.content, sha256: file.sha256 });
    else if (file.kind === "unsafe") {
      scope.skipped.push({ path: shown, reason: file.reason });
      scope.skippedEntryPaths.add(rel);
    }
  }
}
