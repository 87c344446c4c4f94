/**
 * The transaction every write runs in: it begins by locking its namespace row, so writers of one
 * namespace run one after another and cursors are handed out gap-free and in commit order. A
 * transaction that moved the namespace's cursor sends `NOTIFY teammem_changes, '<namespace id>:<cursor>'`
 * (no content) before it commits; PostgreSQL delivers it at commit, in commit order, to every
 * instance's LISTEN connection (see live/change-listener.ts).
 */
import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import type { Db, Tx } from "../db/database.js";
import { lockNamespace, parseWriteState, readForWrite, readForWriteSql, type WriteState } from "./heads.js";

/** The channel every write notifies and every instance listens on. */
export const CHANGES_CHANNEL = "teammem_changes";

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
 * On a connection of `pool`: sends `BEGIN; <lead>` as one simple-protocol query (its statements run
 * in order, each with its own snapshot), then `work(tx, results of lead's statements)`, then
 * `<trail>; COMMIT` as one query; ROLLBACK when anything throws (rethrown).
 */
async function pgTransaction<T>(
  pool: pg.Pool,
  lead: string,
  work: (tx: Tx, lead: pg.QueryResult[]) => Promise<T>,
  trail: (lead: pg.QueryResult[]) => string,
): Promise<T> {
  return onPgConnection(pool, async (client) => {
    const results = (await client.query(`BEGIN; ${lead}`)) as unknown as pg.QueryResult[];
    const value = await work(drizzle(client) as unknown as Tx, results.slice(1));
    await client.query(`${trail(results.slice(1))}; COMMIT`);
    return value;
  });
}

function lockSql(namespaceId: string): string {
  if (!UUID.test(namespaceId)) throw new Error(`not a namespace id: ${namespaceId}`);
  return `SELECT cursor FROM namespaces WHERE id = '${namespaceId}' FOR UPDATE`;
}

/**
 * The statement that notifies the namespace's new cursor when the transaction moved it past
 * `lockedCursor` (a write that changed nothing, e.g. an idempotent replay, notifies nothing).
 */
function notifySql(namespaceId: string, lockedCursor: number): string {
  if (!UUID.test(namespaceId)) throw new Error(`not a namespace id: ${namespaceId}`);
  return (
    `SELECT pg_notify('${CHANGES_CHANNEL}', id::text || ':' || cursor::text) FROM namespaces ` +
    `WHERE id = '${namespaceId}' AND cursor > ${Math.trunc(lockedCursor)}`
  );
}

/** As {@link notifySql}, inside a drizzle transaction (PGlite). */
async function notifyIn(tx: Tx, namespaceId: string, lockedCursor: number): Promise<void> {
  await tx.execute(sql.raw(notifySql(namespaceId, lockedCursor)));
}

function lockedCursor(result: pg.QueryResult | undefined): number {
  const row = result?.rows[0] as { cursor: string | number } | undefined;
  if (!row) throw new Error("namespace disappeared during a write");
  return Number(row.cursor);
}

/**
 * Runs `work(tx, cursor)` in one transaction that first takes the lock of namespace `namespaceId`
 * (`SELECT cursor … FOR UPDATE`); `cursor` is the namespace's current cursor, read under the lock.
 * Commits when `work` resolves, rolls back when it throws (the error is rethrown).
 *
 * On PostgreSQL through a `pg` pool, BEGIN and the lock travel as one simple-protocol query (one
 * round trip instead of two; the namespace id is a database-made UUID, checked by pattern before it
 * is inlined). Elsewhere (PGlite, in-process: round trips cost nothing) drizzle's own transaction.
 * `work` must not start nested transactions.
 * @throws Error when the namespace row does not exist, or any database error.
 */
export async function inNamespaceTransaction<T>(db: Db, namespaceId: string, work: (tx: Tx, cursor: number) => Promise<T>): Promise<T> {
  const pool = pgPool(db);
  if (!pool) {
    return db.transaction(async (tx) => {
      const { cursor } = await lockNamespace(tx, namespaceId);
      const value = await work(tx, cursor);
      await notifyIn(tx, namespaceId, cursor);
      return value;
    });
  }
  return pgTransaction(
    pool,
    lockSql(namespaceId),
    (tx, [lock]) => work(tx, lockedCursor(lock)),
    ([lock]) => notifySql(namespaceId, lockedCursor(lock)),
  );
}

/**
 * As {@link inNamespaceTransaction}, and reads under the lock what a batch write needs: the stored
 * result of `opId` and the head of `path` ({@link readForWrite}). On PostgreSQL BEGIN, the lock and
 * that read are one round trip (three statements of one simple-protocol query; `opId` and `path`
 * inlined as hex digits only).
 */
export async function inWriteTransaction<T>(
  db: Db,
  namespaceId: string,
  opId: string,
  path: string,
  work: (tx: Tx, cursor: number, state: WriteState) => Promise<T>,
): Promise<T> {
  const pool = pgPool(db);
  if (!pool) {
    return db.transaction(async (tx) => {
      const { cursor } = await lockNamespace(tx, namespaceId);
      const value = await work(tx, cursor, await readForWrite(tx, namespaceId, opId, path));
      await notifyIn(tx, namespaceId, cursor);
      return value;
    });
  }
  const lead = `${lockSql(namespaceId)}; ${readForWriteSql(namespaceId, opId, path)}`;
  return pgTransaction(
    pool,
    lead,
    (tx, [lock, read]) => work(tx, lockedCursor(lock), parseWriteState(read?.rows[0])),
    ([lock]) => notifySql(namespaceId, lockedCursor(lock)),
  );
}
