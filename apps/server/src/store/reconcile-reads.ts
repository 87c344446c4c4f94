/**
 * Reads a client's reconciliation needs: every head of a namespace by path (metadata only), and,
 * per path, the newest version of its history whose content hash is one the client knows.
 */
import type { HeadInfo } from "@teammem/protocol";
import { and, asc, eq, gt, sql } from "drizzle-orm";
import type { Db } from "../db/database.js";
import { entries } from "../db/schema.js";
import { namespaceCursor } from "./changes.js";

/**
 * Up to `limit` heads (tombstones included) with a path after `after`, in path order (the
 * database's order of the `path` column, so the primary key serves it), and the namespace's cursor
 * read before them: every change after that cursor is in the change feed.
 * @returns `nextAfter`: the last path returned when more may follow, else null.
 */
export async function listHeads(db: Db, namespaceId: string, after: string | undefined, limit: number): Promise<{ heads: HeadInfo[]; nextAfter: string | null; cursor: number }> {
  const cursor = await namespaceCursor(db, namespaceId);
  const rows = await db
    .select({ path: entries.path, version: entries.version, sha256: entries.sha256, deleted: entries.deleted })
    .from(entries)
    .where(after === undefined ? eq(entries.namespaceId, namespaceId) : and(eq(entries.namespaceId, namespaceId), gt(entries.path, after)))
    .orderBy(asc(entries.path))
    .limit(limit + 1);
  const more = rows.length > limit;
  const heads = rows.slice(0, limit).map((r) => ({ ...r, sha256: r.deleted ? null : r.sha256 }));
  return { heads, nextAfter: more ? heads[heads.length - 1]!.path : null, cursor };
}

/**
 * For each `{ path, candidates }`: the newest live version of `path` whose sha256 starts with one
 * of `candidates` (16 hex digits each). Paths without one are left out. One query.
 */
export async function findVersions(
  db: Db,
  namespaceId: string,
  queries: readonly { path: string; candidates: readonly string[] }[],
): Promise<{ path: string; version: number; sha256: string }[]> {
  const pairs = queries.flatMap((q) => q.candidates.map((c) => sql`(${q.path}, ${c})`));
  if (pairs.length === 0) return [];
  const result = await db.execute(sql`
    SELECT DISTINCT ON (v.path) v.path, v.version, v.sha256
    FROM versions v
    JOIN (VALUES ${sql.join(pairs, sql`, `)}) AS q(path, prefix) ON v.path = q.path AND left(v.sha256, 16) = q.prefix
    WHERE v.namespace_id = ${namespaceId} AND NOT v.deleted
    ORDER BY v.path, v.version DESC`);
  return (result as unknown as { rows: { path: string; version: number; sha256: string }[] }).rows.map((r) => ({
    path: r.path,
    version: Number(r.version),
    sha256: r.sha256,
  }));
}
