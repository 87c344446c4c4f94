/**
 * Audit retention: deletes the events older than a cutoff through the database's one door
 * (`teammem_purge_audit_events`, the only delete the append-only trigger lets through) and records
 * each purge as a `retention_purge` event of the team whose events it deleted (count and cutoff),
 * in the same transaction. One instance purges at a time (advisory lock); the others skip.
 */
import { sql } from "drizzle-orm";
import type { Db, Tx } from "../db/database.js";
import { recordAuditEvent, SERVER_ACTOR } from "./events.js";

/** Key of the transaction-level advisory lock held while purging. */
const RETENTION_LOCK_KEY = 0x7ea3_a0d;

async function rowsOf<T>(tx: Tx, query: ReturnType<typeof sql>): Promise<T[]> {
  return ((await tx.execute(query)) as unknown as { rows: T[] }).rows;
}

/**
 * Deletes every audit event created more than `retentionDays` days ago, by the database's clock
 * (`now() - retentionDays days`, the clock `created_at` was set by; this process's clock may be off).
 * @returns per team (null: events of no team) how many were deleted; empty when nothing was, or
 *   when another process is purging right now.
 */
export async function purgeAuditEvents(db: Db, retentionDays: number): Promise<{ teamId: string | null; purged: number }[]> {
  return db.transaction(async (tx) => {
    const [lock] = await rowsOf<{ ok: boolean; cutoff: string | Date }>(
      tx,
      sql`SELECT pg_try_advisory_xact_lock(${RETENTION_LOCK_KEY}) AS ok, now() - make_interval(days => ${retentionDays}::int) AS cutoff`,
    );
    if (!lock?.ok) return [];
    const cutoff = new Date(lock.cutoff);
    const rows = await rowsOf<{ team_id: string | null; purged: string | number }>(
      tx,
      sql`SELECT team_id, purged FROM teammem_purge_audit_events(${cutoff.toISOString()}::timestamptz)`,
    );
    const purged = rows.map((r) => ({ teamId: r.team_id, purged: Number(r.purged) }));
    for (const p of purged) {
      await recordAuditEvent(tx, { teamId: p.teamId, actor: SERVER_ACTOR, kind: "retention_purge", count: p.purged, periodEnd: cutoff });
    }
    return purged;
  });
}
