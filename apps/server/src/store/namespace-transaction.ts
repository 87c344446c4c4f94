/**
 * The transaction every write runs in: it begins by locking its namespace row, so writers of one
 * namespace run one after another and cursors are handed out gap-free and in commit order.
 */
import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import type { Db, Tx } from "../db/database.js";
import { lockNamespace } from "./heads.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Runs `work(tx, cursor)` in one transaction that first takes the lock of namespace `namespaceId`
 * (`SELECT cursor … FOR UPDATE`); `cursor` is the namespace's current cursor, read under the lock.
 * Commits when `work` resolves, rolls back when it throws (the error is rethrown).
 *
 * On PostgreSQL through a `pg` pool, BEGIN and the lock travel as one simple-protocol query (one
 * round trip instead of two; the namespace id is a database-made UUID, checked by pattern before it
 * is inlined). Elsewhere (PGlite, in-process: round trips cost nothing) drizzle's own transaction.
 * Statements in `work` must not start nested transactions.
 * @throws Error when the namespace row does not exist, or any database error.
 */
export async function inNamespaceTransaction<T>(db: Db, namespaceId: string, work: (tx: Tx, cursor: number) => Promise<T>): Promise<T> {
  const pool = (db as { $client?: unknown }).$client;
  if (!(pool instanceof pg.Pool)) {
    return db.transaction(async (tx) => {
      const { cursor } = await lockNamespace(tx, namespaceId);
      return work(tx, cursor);
    });
  }
  if (!UUID.test(namespaceId)) throw new Error(`not a namespace id: ${namespaceId}`);
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    const results = (await client.query(`BEGIN; SELECT cursor FROM namespaces WHERE id = '${namespaceId}' FOR UPDATE`)) as unknown as pg.QueryResult[];
    const row = results[1]?.rows[0] as { cursor: string | number } | undefined;
    if (!row) throw new Error("namespace disappeared during a write");
    const value = await work(drizzle(client) as unknown as Tx, Number(row.cursor));
    await client.query("COMMIT");
    return value;
  } catch (err) {
    try {
      await client.query("ROLLBACK");
    } catch (rollbackErr) {
      broken = rollbackErr as Error; // the connection is unusable: the pool drops it
    }
    throw err;
  } finally {
    client.release(broken);
  }
}
