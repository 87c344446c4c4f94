/** The change feed: the latest state of each entry changed after a cursor, in cursor order. */
import type { ChangesResponse, PurgeNotice } from "@teammem/protocol";
import { and, asc, eq, gt, inArray, lte, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import type { Db } from "../db/database.js";
import { entries, namespaces, renames, versions } from "../db/schema.js";

/** The rename whose tombstone an entry's head is, and the rename that wrote it. */
const movedAway = alias(renames, "moved_away");
const movedHere = alias(renames, "moved_here");

/** What the feed reads of an entry's purged versions (null: none purged). */
interface PurgedRow {
  versions: number[];
  sha256: string[] | null;
  by: string;
  at: string;
  reason: string;
}

/**
 * The entry's purged versions, one correlated subquery per returned row on the versions' unique
 * (namespace, path, version) index: the versions, their content hashes except the head's own, and
 * the latest purge's who/when/why.
 */
const purgedOfEntry = sql<PurgedRow | null>`(
  SELECT CASE WHEN count(*) = 0 THEN NULL ELSE json_build_object(
    'versions', array_agg(pv.version ORDER BY pv.version),
    'sha256', array_agg(DISTINCT pv.sha256) FILTER (WHERE pv.sha256 IS NOT NULL AND pv.sha256 IS DISTINCT FROM ${entries.sha256}),
    'by', (array_agg(pv.purged_by ORDER BY pv.purged_at DESC))[1],
    'at', max(pv.purged_at),
    'reason', (array_agg(pv.purge_reason ORDER BY pv.purged_at DESC))[1]) END
  FROM versions pv
  WHERE pv.namespace_id = ${entries.namespaceId} AND pv.path = ${entries.path} AND pv.purged_at IS NOT NULL)`;

function purgeNotice(row: PurgedRow | null): PurgeNotice | undefined {
  if (!row) return undefined;
  return { versions: row.versions, sha256: row.sha256 ?? [], by: row.by ?? "", at: new Date(row.at).toISOString(), reason: row.reason ?? "" };
}

/** The namespace's cursor: the last change cursor handed out in it (0: none yet). */
export async function namespaceCursor(db: Db, namespaceId: string): Promise<number> {
  const [ns] = await db.select({ cursor: namespaces.cursor }).from(namespaces).where(eq(namespaces.id, namespaceId));
  return ns?.cursor ?? 0;
}

/** The cursor of each of the namespaces `namespaceIds` that exists, by id (one query). */
export async function namespaceCursors(db: Db, namespaceIds: readonly string[]): Promise<Map<string, number>> {
  if (namespaceIds.length === 0) return new Map();
  const rows = await db.select({ id: namespaces.id, cursor: namespaces.cursor }).from(namespaces).where(inArray(namespaces.id, [...namespaceIds]));
  return new Map(rows.map((r) => [r.id, r.cursor]));
}

/**
 * Heads whose cursor is in (`since`, namespace cursor], oldest first, at most `limit`.
 * Stable pagination: the namespace cursor is read first, and a writer commits cursor N before any
 * writer can take N+1 (namespace lock), so every head at or below it is already visible. An entry
 * written again moves to its new cursor and is returned there (once per page walk). A head a rename
 * wrote names the other path (`renamedTo` on the old path's tombstone, `renamedFrom` on the new path).
 * An entry with purged versions carries `purged` (a purge moves the entry to a new cursor).
 * @returns `nextCursor`: the last returned cursor when `hasMore`, else the namespace cursor; or
 *   "ahead" when `since` is above the namespace cursor (a cursor of another server or epoch).
 */
export async function readChanges(db: Db, namespaceId: string, since: number, limit: number): Promise<Omit<ChangesResponse, "server"> | "ahead"> {
  const upTo = await namespaceCursor(db, namespaceId);
  if (since > upTo) return "ahead";
  const rows = await db
    .select({
      cursor: entries.cursor,
      path: entries.path,
      version: entries.version,
      deleted: entries.deleted,
      sha256: entries.sha256,
      size: entries.sizeBytes,
      content: entries.content,
      author: versions.authorName,
      createdAt: versions.createdAt,
      renamedTo: movedAway.toPath,
      renamedFrom: movedHere.fromPath,
      purged: purgedOfEntry,
    })
    .from(entries)
    .leftJoin(versions, and(eq(versions.namespaceId, entries.namespaceId), eq(versions.path, entries.path), eq(versions.version, entries.version)))
    .leftJoin(movedAway, and(eq(movedAway.namespaceId, entries.namespaceId), eq(movedAway.fromPath, entries.path), eq(movedAway.fromVersion, entries.version)))
    .leftJoin(movedHere, and(eq(movedHere.namespaceId, entries.namespaceId), eq(movedHere.toPath, entries.path), eq(movedHere.toVersion, entries.version)))
    .where(and(eq(entries.namespaceId, namespaceId), gt(entries.cursor, since), lte(entries.cursor, upTo)))
    .orderBy(asc(entries.cursor))
    .limit(limit + 1);
  const hasMore = rows.length > limit;
  const page = rows.slice(0, limit);
  return {
    changes: page.map((r) => ({
      cursor: r.cursor,
      path: r.path,
      version: r.version,
      deleted: r.deleted,
      sha256: r.sha256,
      size: r.size,
      content: r.deleted ? null : r.content,
      author: r.author ?? "",
      createdAt: (r.createdAt ?? new Date(0)).toISOString(),
      ...(r.renamedFrom ? { renamedFrom: r.renamedFrom } : {}),
      ...(r.renamedTo ? { renamedTo: r.renamedTo } : {}),
      ...(r.purged ? { purged: purgeNotice(r.purged) } : {}),
    })),
    nextCursor: hasMore ? page[page.length - 1]!.cursor : upTo,
    hasMore,
  };
}
