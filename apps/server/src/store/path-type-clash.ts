/**
 * File/folder clashes: a path cannot be a file and a folder at once on a client's disk, so a live
 * entry must never be an ancestor (`notes` vs `notes/a.md`) or a descendant of another live entry.
 * Compared by case-folded key, like the case clash (case-insensitive file systems clash too).
 */
import { pathFoldKey } from "@teammem/protocol";
import { and, eq, inArray, like, not, or } from "drizzle-orm";
import type { Tx } from "../db/database.js";
import { entries } from "../db/schema.js";
import { Refusal } from "../errors/refusal.js";

/** `text` for a LIKE pattern with `\` as escape character: `%`, `_` and `\` match themselves. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** Folded keys of every proper ancestor of `foldKey`: `a/b/c.md` → [`a`, `a/b`]. */
export function ancestorKeys(foldKey: string): string[] {
  const segments = foldKey.split("/");
  return segments.slice(1).map((_, i) => segments.slice(0, i + 1).join("/"));
}

/**
 * A live entry that is an ancestor or a descendant of `path` (case-folded), or null. One query on
 * the live (namespace_id, fold_key) index: `fold_key IN (ancestors) OR fold_key LIKE 'path/%'`.
 * Call it inside the write transaction that holds the namespace lock.
 */
export async function findPathTypeClash(tx: Tx, namespaceId: string, path: string): Promise<string | null> {
  const key = pathFoldKey(path);
  const ancestors = ancestorKeys(key);
  const below = like(entries.foldKey, `${escapeLike(key)}/%`);
  const [row] = await tx
    .select({ path: entries.path })
    .from(entries)
    .where(and(eq(entries.namespaceId, namespaceId), not(entries.deleted), ancestors.length > 0 ? or(inArray(entries.foldKey, ancestors), below) : below))
    .limit(1);
  return row?.path ?? null;
}

/** The `path_type_conflict` refusal of writing `path` while the live entry `clash` exists. */
export function pathTypeConflict(path: string, clash: string): Refusal {
  // `path` (as sent) is not quoted; `clash` is a stored entry's path.
  const folder = pathFoldKey(clash).startsWith(`${pathFoldKey(path)}/`) ? "this path" : clash;
  return new Refusal("path_type_conflict", `this path clashes with the live entry ${clash}: ${folder} cannot be both a file and a folder`, { path: clash });
}
