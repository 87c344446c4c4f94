/**
 * Retention of the idempotency table (`operations`): the stored results of operation ids older
 * than a cutoff are deleted, so the table does not grow with every write ever made. A client that
 * replays an operation after that (an outbox kept offline for longer than the retention) has it
 * decided again as a new operation, which is safe: see `decide` in apply-operation.ts (an edit or
 * delete already in the path's history since its base is answered with the head, never re-applied).
 * One instance prunes at a time (advisory lock); the others skip.
 */
import { sql } from "drizzle-orm";
import type { Db } from "../db/database.js";

/** Key of the transaction-level advisory lock held while pruning. */
const OPERATION_RETENTION_LOCK_KEY = 0x7ea3_a0e;

/**
 * Deletes the stored results of every operation stored more than `retentionDays` days ago, by the
 * database's clock (`now()`, the clock `created_at` was set by; this process's clock may be off).
 * @returns how many were deleted (0 also when another process is pruning right now).
 */
export async function pruneOperations(db: Db, retentionDays: number): Promise<number> {
  return db.transaction(async (tx) => {
    const lock = (await tx.execute(sql`SELECT pg_try_advisory_xact_lock(${OPERATION_RETENTION_LOCK_KEY}) AS ok`)) as unknown as { rows: { ok: boolean }[] };
    if (!lock.rows[0]?.ok) return 0;
    const deleted = (await tx.execute(sql`DELETE FROM operations WHERE created_at < now() - make_interval(days => ${retentionDays}::int)`)) as unknown as {
      rowCount?: number | null;
      affectedRows?: number;
    };
    return Number(deleted.rowCount ?? deleted.affectedRows ?? 0);
  });
}
