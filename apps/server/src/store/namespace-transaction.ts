/**
 * The transaction every write runs in: it begins by locking its namespace row, so writers of one
 * namespace run one after another and cursors are handed out gap-free and in commit order. A
 * transaction that moved the namespace's cursor is announced as `NOTIFY teammem_changes,
 * '<namespace id>:<cursor>'` (no content) to every instance's LISTEN connection
 * (live/change-listener.ts): on PostgreSQL AFTER its commit, by the instance's
 * `ChangeNotifier` (store/change-notifier.ts; a NOTIFY inside the transaction would serialize concurrent commits); on
 * PGlite inside the transaction, delivered at commit.
 */
import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import type { Db, Tx } from "../db/database.js";
import { CHANGES_CHANNEL } from "./change-notifier.js";
import { lockNamespace, parseWriteState, readForWrite, readForWriteSql, type WriteState } from "./heads.js";
import type { WriteContext } from "./write-context.js";

export { CHANGES_CHANNEL } from "./change-notifier.js";

/** What a write transaction needs of its write context: the namespace, and who notifies its commit. */
export type NamespaceTarget = Pick<WriteContext, "namespace" | "notifier">;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The `pg` pool behind `db`, or null (PGlite). */
export function pgPool(db: Db): pg.Pool | null {
  const client = (db as { $client?: unknown }).$client;
  return client instanceof pg.Pool ? client : null;
}

/**
 * Runs `run(client)` on a connection of `pool` that `run` uses for one transaction; ROLLBACK when
 * `run` throws (rethrown). A connection that cannot even roll back is discarded.
 */
async function onPgConnection<T>(pool: pg.Pool, run: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  // A checked-out connection has no 'error' listener of the pool's: one the server terminates
  // between two queries (a restart) would otherwise end the process. It is discarded on release.
  const onError = (err: Error) => void (broken ??= err);
  client.on("error", onError);
  try {
    return await run(client);
  } catch (err) {
    try {
      await client.query("ROLLBACK");
    } catch (rollbackErr) {
      broken = rollbackErr as Error;
    }
    throw err;
  } finally {
    client.off("error", onError);
    client.release(broken);
  }
}

/**
 * On a connection of `pool`: sends `BEGIN; <lock>[; <read>]` as one simple-protocol query (its
 * statements run in order, each with its own snapshot), then `work(tx, results of the lock and the
 * read)`, then `<moved cursor>; COMMIT` as one query, where `<moved cursor>` reads the namespace's
 * cursor if the transaction moved it past the locked one; once COMMIT succeeded, hands that cursor
 * to `target.notifier`. ROLLBACK when anything throws (rethrown; nothing is notified).
 */
async function pgTransaction<T>(pool: pg.Pool, target: NamespaceTarget, read: string | null, work: (tx: Tx, lead: pg.QueryResult[]) => Promise<T>): Promise<T> {
  const namespaceId = target.namespace.id;
  const lead = read === null ? lockSql(namespaceId) : `${lockSql(namespaceId)}; ${read}`;
  let moved: number | null = null;
  const value = await onPgConnection(pool, async (client) => {
    const results = (await client.query(`BEGIN; ${lead}`)) as unknown as pg.QueryResult[];
    const value = await work(drizzle(client) as unknown as Tx, results.slice(1));
    const [cursor] = (await client.query(`${movedCursorSql(namespaceId, lockedCursor(results[1]))}; COMMIT`)) as unknown as pg.QueryResult[];
    const row = cursor?.rows[0] as { cursor: string | number } | undefined;
    moved = row ? Number(row.cursor) : null;
    return value;
  });
  if (moved !== null) target.notifier.committed(namespaceId, moved);
  return value;
}

function lockSql(namespaceId: string): string {
  if (!UUID.test(namespaceId)) throw new Error(`not a namespace id: ${namespaceId}`);
  return `SELECT cursor FROM namespaces WHERE id = '${namespaceId}' FOR UPDATE`;
}

/**
 * The statement that reads the namespace's cursor when the transaction moved it past
 * `lockedCursor` (no row for a write that changed nothing, e.g. an idempotent replay).
 */
function movedCursorSql(namespaceId: string, lockedCursor: number): string {
  if (!UUID.test(namespaceId)) throw new Error(`not a namespace id: ${namespaceId}`);
  return `SELECT cursor FROM namespaces WHERE id = '${namespaceId}' AND cursor > ${Math.trunc(lockedCursor)}`;
}

/**
 * The statement that notifies the namespace's new cursor when the transaction moved it past
 * `lockedCursor` (PGlite: inside the transaction, delivered at commit).
 */
function notifySql(namespaceId: string, lockedCursor: number): string {
  if (!UUID.test(namespaceId)) throw new Error(`not a namespace id: ${namespaceId}`);
  return (
    `SELECT pg_notify('${CHANGES_CHANNEL}', id::text || ':' || cursor::text) FROM namespaces ` +
    `WHERE id = '${namespaceId}' AND cursor > ${Math.trunc(lockedCursor)}`
  );
}

/** As {@link notifySql}, inside a drizzle transaction. */
async function notifyIn(tx: Tx, namespaceId: string, lockedCursor: number): Promise<void> {
  await tx.execute(sql.raw(notifySql(namespaceId, lockedCursor)));
}

function lockedCursor(result: pg.QueryResult | undefined): number {
  const row = result?.rows[0] as { cursor: string | number } | undefined;
  if (!row) throw new Error("namespace disappeared during a write");
  return Number(row.cursor);
}

/**
 * Runs `work(tx, cursor)` in one transaction that first takes the lock of namespace
 * `target.namespace.id` (`SELECT cursor … FOR UPDATE`); `cursor` is the namespace's current cursor,
 * read under the lock. Commits when `work` resolves, rolls back when it throws (the error is
 * rethrown). A commit that moved the cursor is notified (module docstring).
 *
 * On PostgreSQL through a `pg` pool, BEGIN and the lock travel as one simple-protocol query (one
 * round trip instead of two; the namespace id is a database-made UUID, checked by pattern before it
 * is inlined); the new cursor is read in COMMIT's round trip and handed to `target.notifier` after
 * it. Elsewhere (PGlite, in-process: round trips cost nothing) drizzle's own transaction.
 * `work` must not start nested transactions.
 * @throws Error when the namespace row does not exist, or any database error.
 */
export async function inNamespaceTransaction<T>(db: Db, target: NamespaceTarget, work: (tx: Tx, cursor: number) => Promise<T>): Promise<T> {
  const namespaceId = target.namespace.id;
  const pool = pgPool(db);
  if (!pool) {
    return db.transaction(async (tx) => {
      const { cursor } = await lockNamespace(tx, namespaceId);
      const value = await work(tx, cursor);
      await notifyIn(tx, namespaceId, cursor);
      return value;
    });
  }
  return pgTransaction(pool, target, null, (tx, [lock]) => work(tx, lockedCursor(lock)));
}

/**
 * As {@link inNamespaceTransaction}, and reads under the lock what a batch write needs: the stored
 * result of `opId` and the head of `path` ({@link readForWrite}). On PostgreSQL BEGIN, the lock and
 * that read are one round trip (three statements of one simple-protocol query; `opId` and `path`
 * inlined as hex digits only).
 */
export async function inWriteTransaction<T>(
  db: Db,
  target: NamespaceTarget,
  opId: string,
  path: string,
  work: (tx: Tx, cursor: number, state: WriteState) => Promise<T>,
): Promise<T> {
  const namespaceId = target.namespace.id;
  const pool = pgPool(db);
  if (!pool) {
    return db.transaction(async (tx) => {
      const { cursor } = await lockNamespace(tx, namespaceId);
      const value = await work(tx, cursor, await readForWrite(tx, namespaceId, opId, path));
      await notifyIn(tx, namespaceId, cursor);
      return value;
    });
  }
  return pgTransaction(pool, target, readForWriteSql(namespaceId, opId, path), (tx, [lock, read]) =>
    work(tx, lockedCursor(lock), parseWriteState(read?.rows[0])),
  );
}
