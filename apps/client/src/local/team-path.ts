/**
 * Where a path a user or an agent names lies in a memory folder: in the team scope (an entry
 * path), private, or outside the folder. A relative path is relative to the memory folder
 * (`team/x.md`); an absolute one must lie inside it (an agent's hook names files absolutely).
 */
import { realpathSync } from "node:fs";
import { basename, dirname, isAbsolute, join, normalize, relative, sep } from "node:path";
import { checkEntryPath, checkExistingEntryPath } from "@teammem/protocol";
import type { Layout } from "../state/layout.js";

export type TeamPath =
  /** `entryPath` "" is `team/` itself. */
  | { readonly scope: "team"; readonly entryPath: string }
  | { readonly scope: "invalid"; readonly reason: string }
  /** `relative`: the path relative to the memory folder. */
  | { readonly scope: "private"; readonly relative: string }
  | { readonly scope: "outside" };

/** The path relative to `root`, or undefined when `abs` is not inside `root`. */
function inside(root: string, abs: string): string | undefined {
  const rel = relative(root, abs);
  if (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel)) return rel.split(sep).join("/");
  return undefined;
}

/**
 * `path` with its deepest existing ancestor resolved through symlinks (so /tmp vs /private/tmp still
 * match): where a write to `path` lands, whether the file or only some of its folders exist yet.
 */
export function realish(path: string): string {
  let head = path;
  let tail = "";
  for (;;) {
    try {
      return join(realpathSync(head), tail);
    } catch {
      const parent = dirname(head);
      if (parent === head) return path;
      tail = join(basename(head), tail); // not head.slice(parent.length + 1): parent "/" ends in its separator
      head = parent;
    }
  }
}

/**
 * Classifies `raw` (see the module comment); trailing slashes name a folder. `existing`: the path
 * names an entry that may be stored already (history, diff, restore: a read of the server's
 * versions), checked as the server checks such paths (`checkExistingEntryPath`: a name stored
 * before the invisible-character or Windows-name rules stays reachable, try17 C2); else as a name
 * to be written (`checkEntryPath`).
 */
export function teamPathOf(layout: Layout, raw: string, { existing = false }: { existing?: boolean } = {}): TeamPath {
  const trimmed = raw.replace(/[/\\]+$/, "");
  const abs = normalize(isAbsolute(trimmed) ? trimmed : join(layout.root, trimmed));
  const rel = inside(layout.root, abs) ?? inside(realish(layout.root), realish(abs));
  if (rel === undefined) return { scope: "outside" };
  if (rel !== "team" && !rel.startsWith("team/")) return { scope: "private", relative: rel };
  const entryPath = rel.slice("team/".length);
  if (entryPath === "") return { scope: "team", entryPath: "" };
  const check = existing ? checkExistingEntryPath(entryPath) : checkEntryPath(entryPath);
  if (!check.ok) return { scope: "invalid", reason: check.message };
  return { scope: "team", entryPath: check.path };
}

/** Whether `entryPath` is `prefix` or lies under it (`prefix` "" is the whole team scope). */
export function underEntry(prefix: string, entryPath: string): boolean {
  return prefix === "" || entryPath === prefix || entryPath.startsWith(`${prefix}/`);
}
