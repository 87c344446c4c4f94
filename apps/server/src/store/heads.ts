/**
 * Low-level steps of every write, run inside one transaction that holds the namespace lock
 * (`inNamespaceTransaction`, or {@link lockNamespace} first). Versions and cursors come from the
 * database, never from clocks.
 */
import { pathFoldKey, sha256Hex, type OperationResult } from "@teammem/protocol";
import { and, eq, ne, not, sql } from "drizzle-orm";
import type { Tx } from "../db/database.js";
import { Refusal } from "../errors/refusal.js";
import type { StoredOperation } from "./idempotency.js";
import { findPathTypeClash, pathTypeConflict } from "./path-type-clash.js";
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
async function findCaseClash(tx: Tx, namespaceId: string, path: string, foldKey: string): Promise<string | null> {
  const [row] = await tx
    .select({ path: entries.path })
    .from(entries)
    .where(and(eq(entries.namespaceId, namespaceId), eq(entries.foldKey, foldKey), ne(entries.path, path), not(entries.deleted)))
    .limit(1);
  return row?.path ?? null;
}

/**
 * Number of live (non-deleted) entries in the namespace: the counter `namespaces.live_entries`,
 * kept by {@link commitVersion} (one primary-key read, whatever the namespace's size).
 */
async function countLiveEntries(tx: Tx, namespaceId: string): Promise<number> {
  const [row] = await tx.select({ n: namespaces.liveEntries }).from(namespaces).where(eq(namespaces.id, namespaceId));
  return row?.n ?? 0;
}

/**
 * Refusals for a write that makes `path` live (for the first time or again after a delete):
 * `path_case_conflict` (details `{ path }` of the live path it clashes with), `path_type_conflict`
 * (a live ancestor or descendant, details `{ path }`: path-type-clash.ts) and `namespace_full`
 * (details `{ limit, value }`). Both may pass later unchanged, so they are never stored for replay.
 */
export async function checkNewLiveEntry(tx: Tx, ctx: WriteContext, path: string): Promise<Refusal | null> {
  const clash = await findCaseClash(tx, ctx.namespace.id, path, pathFoldKey(path));
  if (clash !== null) {
    return new Refusal("path_case_conflict", "another path differing only by case exists in this namespace", { path: clash });
  }
  const typeClash = await findPathTypeClash(tx, ctx.namespace.id, path);
  if (typeClash !== null) return pathTypeConflict(path, typeClash);
  const live = await countLiveEntries(tx, ctx.namespace.id);
  const limit = ctx.limits.maxEntriesPerNamespace;
  if (live >= limit) {
    return new Refusal("namespace_full", `the namespace holds ${live} entries, the limit is ${limit}`, { limit, value: live });
  }
  return null;
}

/**
 * Sets the namespace cursor to `cursor` (the locked cursor + 1: the caller holds the lock, so no
 * one else can take it).
 */
export async function takeCursor(tx: Tx, namespaceId: string, cursor: number): Promise<void> {
  await tx.update(namespaces).set({ cursor }).where(eq(namespaces.id, namespaceId));
}

/** What a batch write needs to know under the lock: the stored result of its opId, and the head. */
export interface WriteState {
  stored: StoredOperation | null;
  head: Head | null;
}

/** One row of {@link readForWrite} / {@link readForWriteSql}, columns as selected there. */
export interface WriteStateRow {
  request_sha256: string | null;
  result: unknown;
  path: string | null;
  version: number | null;
  deleted: boolean | null;
  content: string | null;
  sha256: string | null;
  size_bytes: number | null;
  cursor: number | string | null;
}

function toWriteState(row: WriteStateRow | undefined): WriteState {
  if (!row) throw new Error("namespace disappeared during a write");
  return {
    stored: row.request_sha256 !== null ? { requestSha256: row.request_sha256, result: row.result as OperationResult } : null,
    head:
      row.path !== null
        ? {
            path: row.path,
            version: row.version!,
            deleted: row.deleted!,
            content: row.content,
            sha256: row.sha256,
            sizeBytes: row.size_bytes!,
            cursor: Number(row.cursor),
          }
        : null,
  };
}

const WRITE_STATE_COLUMNS = "o.request_sha256, o.result, e.path, e.version, e.deleted, e.content, e.sha256, e.size_bytes, e.cursor";

/**
 * Reads, in one round trip, the stored result of `opId` (if any) and the head of `path`. Call it
 * under the namespace lock ({@link lockNamespace}), as a statement of its own AFTER the lock: under
 * READ COMMITTED a statement that waited for a row lock re-reads only the locked row, not the rows
 * it joined, which would be stale.
 */
export async function readForWrite(tx: Tx, namespaceId: string, opId: string, path: string): Promise<WriteState> {
  const result = await tx.execute(sql`
    SELECT ${sql.raw(WRITE_STATE_COLUMNS)}
    FROM namespaces n
    LEFT JOIN operations o ON o.namespace_id = n.id AND o.op_id = ${opId}
    LEFT JOIN entries e ON e.namespace_id = n.id AND e.path = ${path}
    WHERE n.id = ${namespaceId}`);
  return toWriteState((result as unknown as { rows: WriteStateRow[] }).rows[0]);
}

/**
 * `text` as an SQL expression made of hex digits only (nothing in it can end the literal), in the
 * database's default collation: `convert_from` alone takes collation "C" from its `name` argument,
 * and a comparison with a column of another collation cannot use the column's index (every write
 * would scan the namespace's operations and entries).
 */
function textLiteral(text: string): string {
  return `(convert_from(decode('${Buffer.from(text, "utf8").toString("hex")}', 'hex'), 'UTF8') COLLATE "default")`;
}

/**
 * The statement of {@link readForWrite} with its values inlined, for a simple-protocol query that
 * sends it together with BEGIN and the lock (each statement of such a query takes its own snapshot,
 * so it reads after the lock as it must). `namespaceId` must be a UUID (checked by the caller);
 * `opId` and `path` are inlined as hex. Parse its row with {@link parseWriteState}.
 */
export function readForWriteSql(namespaceId: string, opId: string, path: string): string {
  return `SELECT ${WRITE_STATE_COLUMNS}
    FROM namespaces n
    LEFT JOIN operations o ON o.namespace_id = n.id AND o.op_id = ${textLiteral(opId)}
    LEFT JOIN entries e ON e.namespace_id = n.id AND e.path = ${textLiteral(path)}
    WHERE n.id = '${namespaceId}'`;
}

/** The {@link WriteState} of a row of {@link readForWriteSql} as returned by `pg`. */
export function parseWriteState(row: Record<string, unknown> | undefined): WriteState {
  return toWriteState(row as unknown as WriteStateRow | undefined);
}

export type VersionKind = "write" | "delete" | "merge" | "restore" | "resolve" | "rename" | "purge";

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

/** Result of an operation to store with the version, computed from the version about to be written. */
export interface OperationRecord {
  opId: string;
  requestSha256: string;
  result: (committed: CommittedVersion) => OperationResult;
}

/**
 * Appends the next version of the path to history and makes it the head at cursor `cursor`
 * (the locked cursor + 1), storing `record`'s result in `operations` too, and moves the
 * namespace's `live_entries` counter when the path becomes live or stops being live (`v.parent`
 * must be the current head): all in one statement, so a fast-forward write costs one round trip
 * besides the lock.
 */
export async function commitVersion(tx: Tx, v: NewVersion, cursor: number, record?: OperationRecord): Promise<{ committed: CommittedVersion; result?: OperationResult }> {
  const version = (v.parent?.version ?? 0) + 1;
  const deleted = v.content === null;
  const sha256 = deleted ? null : sha256Hex(v.content!);
  const sizeBytes = deleted ? 0 : Buffer.byteLength(v.content!, "utf8");
  const committed: CommittedVersion = { version, cursor, sha256, sizeBytes, deleted };
  // The namespace's live-entry counter moves when the path becomes live or stops being live.
  const liveDelta = (deleted ? 0 : 1) - (v.parent && !v.parent.deleted ? 1 : 0);
  const result = record?.result(committed);
  const storeOperation = record
    ? sql`, o AS (INSERT INTO operations (namespace_id, op_id, request_sha256, result)
               VALUES (${v.namespaceId}, ${record.opId}, ${record.requestSha256}, ${JSON.stringify(result)}::jsonb))`
    : sql``;
  await tx.execute(sql`
    WITH c AS (UPDATE namespaces SET cursor = ${cursor}, live_entries = live_entries + ${liveDelta}::integer WHERE id = ${v.namespaceId}),
    v AS (INSERT INTO versions (namespace_id, path, version, kind, deleted, content, sha256, size_bytes,
                                parent_version, base_version, author_id, author_name, client_id, op_id, cursor)
          VALUES (${v.namespaceId}, ${v.path}, ${version}, ${v.kind}, ${deleted}, ${v.content}, ${sha256}, ${sizeBytes},
                  ${v.parent?.version ?? null}, ${v.baseVersion}, ${v.authorId}, ${v.authorName}, ${v.clientId}, ${v.opId}, ${cursor}))
    ${storeOperation}
    INSERT INTO entries (namespace_id, path, fold_key, version, deleted, content, sha256, size_bytes, cursor, updated_at)
    VALUES (${v.namespaceId}, ${v.path}, ${v.foldKey}, ${version}, ${deleted}, ${v.content}, ${sha256}, ${sizeBytes}, ${cursor}, now())
    ON CONFLICT (namespace_id, path) DO UPDATE SET
      fold_key = excluded.fold_key, version = excluded.version, deleted = excluded.deleted, content = excluded.content,
      sha256 = excluded.sha256, size_bytes = excluded.size_bytes, cursor = excluded.cursor, updated_at = excluded.updated_at`);
  return result ? { committed, result } : { committed };
}
