/**
 * Low-level steps of every write, run inside one transaction that holds the namespace lock
 * ({@link lockNamespace} first). Versions and cursors come from the database, never from clocks.
 */
import { pathFoldKey, sha256Hex } from "@teammem/protocol";
import { and, count, eq, ne, not, sql } from "drizzle-orm";
import type { Tx } from "../db/database.js";
import type { Refusal } from "./validate-content.js";
import type { WriteContext } from "./write-context.js";
import { entries, namespaces, versions } from "../db/schema.js";

export interface Head {
  path: string;
  version: number;
  deleted: boolean;
  content: string | null;
  sha256: string | null;
  sizeBytes: number;
  cursor: number;
}

/**
 * Locks the namespace row until the transaction ends: writers of one namespace run one after
 * another, so cursors are handed out gap-free and in commit order.
 * @returns the namespace's current cursor.
 */
export async function lockNamespace(tx: Tx, namespaceId: string): Promise<{ cursor: number }> {
  const [row] = await tx.select({ cursor: namespaces.cursor }).from(namespaces).where(eq(namespaces.id, namespaceId)).for("update");
  if (!row) throw new Error("namespace disappeared during a write");
  return row;
}

/** The head of `path`, or null when the path never existed. */
export async function readHead(tx: Tx, namespaceId: string, path: string): Promise<Head | null> {
  const [row] = await tx
    .select({
      path: entries.path,
      version: entries.version,
      deleted: entries.deleted,
      content: entries.content,
      sha256: entries.sha256,
      sizeBytes: entries.sizeBytes,
      cursor: entries.cursor,
    })
    .from(entries)
    .where(and(eq(entries.namespaceId, namespaceId), eq(entries.path, path)));
  return row ?? null;
}

/** Content of version `version` of `path` ("" for version 0, a tombstone, or a missing version). */
export async function readVersionContent(tx: Tx, namespaceId: string, path: string, version: number): Promise<string> {
  if (version === 0) return "";
  const [row] = await tx
    .select({ content: versions.content })
    .from(versions)
    .where(and(eq(versions.namespaceId, namespaceId), eq(versions.path, path), eq(versions.version, version)));
  return row?.content ?? "";
}

/** Another live path whose case-folded key equals `foldKey`, or null. */
export async function findCaseClash(tx: Tx, namespaceId: string, path: string, foldKey: string): Promise<string | null> {
  const [row] = await tx
    .select({ path: entries.path })
    .from(entries)
    .where(and(eq(entries.namespaceId, namespaceId), eq(entries.foldKey, foldKey), ne(entries.path, path), not(entries.deleted)))
    .limit(1);
  return row?.path ?? null;
}

/** Number of live (non-deleted) entries in the namespace. */
export async function countLiveEntries(tx: Tx, namespaceId: string): Promise<number> {
  const [row] = await tx
    .select({ n: count() })
    .from(entries)
    .where(and(eq(entries.namespaceId, namespaceId), not(entries.deleted)));
  return row?.n ?? 0;
}

/**
 * Refusals for a write that makes `path` live (for the first time or again after a delete):
 * `path_case_conflict` (details `{ path }` of the live path it clashes with) and `namespace_full`
 * (details `{ limit, value }`). Both may pass later unchanged, so they are never stored for replay.
 */
export async function checkNewLiveEntry(tx: Tx, ctx: WriteContext, path: string): Promise<Refusal | null> {
  const clash = await findCaseClash(tx, ctx.namespace.id, path, pathFoldKey(path));
  if (clash !== null) {
    return { code: "path_case_conflict", message: "another path differing only by case exists in this namespace", details: { path: clash } };
  }
  const live = await countLiveEntries(tx, ctx.namespace.id);
  const limit = ctx.limits.maxEntriesPerNamespace;
  if (live >= limit) {
    return { code: "namespace_full", message: `the namespace holds ${live} entries, the limit is ${limit}`, details: { limit, value: live } };
  }
  return null;
}

/** Takes the next change cursor of the namespace (caller holds the lock). */
export async function nextCursor(tx: Tx, namespaceId: string): Promise<number> {
  const [row] = await tx
    .update(namespaces)
    .set({ cursor: sql`${namespaces.cursor} + 1` })
    .where(eq(namespaces.id, namespaceId))
    .returning({ cursor: namespaces.cursor });
  if (!row) throw new Error("namespace disappeared during a write");
  return row.cursor;
}

export type VersionKind = "write" | "delete" | "merge" | "restore" | "resolve";

export interface NewVersion {
  namespaceId: string;
  path: string;
  foldKey: string;
  kind: VersionKind;
  /** null: tombstone. */
  content: string | null;
  /** The head being replaced (null: none). */
  parent: Head | null;
  /** The version the writer started from, when it differs from the parent (merges, edit-wins-over-delete). */
  baseVersion: number | null;
  authorId: string;
  authorName: string;
  clientId: string | null;
  opId: string | null;
}

export interface CommittedVersion {
  version: number;
  cursor: number;
  sha256: string | null;
  sizeBytes: number;
  deleted: boolean;
}

/** Appends the next version of the path to history and makes it the head, at a new cursor. */
export async function commitVersion(tx: Tx, v: NewVersion): Promise<CommittedVersion> {
  const cursor = await nextCursor(tx, v.namespaceId);
  const version = (v.parent?.version ?? 0) + 1;
  const deleted = v.content === null;
  const sha256 = deleted ? null : sha256Hex(v.content!);
  const sizeBytes = deleted ? 0 : Buffer.byteLength(v.content!, "utf8");
  await tx.insert(versions).values({
    namespaceId: v.namespaceId,
    path: v.path,
    version,
    kind: v.kind,
    deleted,
    content: v.content,
    sha256,
    sizeBytes,
    parentVersion: v.parent?.version ?? null,
    baseVersion: v.baseVersion,
    authorId: v.authorId,
    authorName: v.authorName,
    clientId: v.clientId,
    opId: v.opId,
    cursor,
  });
  const head = { version, deleted, content: v.content, sha256, sizeBytes, cursor, foldKey: v.foldKey, updatedAt: sql`now()` };
  await tx
    .insert(entries)
    .values({ namespaceId: v.namespaceId, path: v.path, ...head })
    .onConflictDoUpdate({ target: [entries.namespaceId, entries.path], set: head });
  return { version, cursor, sha256, sizeBytes, deleted };
}
