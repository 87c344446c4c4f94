/**
 * The server's identity and epoch, kept in `server_settings`:
 * - `server_id`: a UUID created once per database (a restore of the database keeps it);
 * - `epoch`: `{ id, startedAt, reason }`, a new UUID on every restore, reset or import;
 * - `epoch_origin`: where the current epoch was started (see {@link DatabaseOrigin}).
 *
 * A cursor is meaningful only within one epoch: clients compare the pair with the one their cursor
 * came from and reconcile by content hashes when it differs. The epoch must therefore change
 * whenever the database may hold another history than the one its clients synced with. We detect
 * what PostgreSQL lets us detect, by comparing the database's origin now with the one recorded when
 * the epoch started; a logical restore (pg_dump/pg_restore, into a re-created database, a new
 * cluster or the same tables) rewrites the settings rows, a point-in-time recovery or a standby's
 * promotion switches the timeline, a new cluster has a new system identifier. A file-level copy of
 * the data folder (or a volume snapshot) looks exactly like the original: an operator starts a new
 * epoch with `teammem-server epoch rotate` (README), an import calls {@link startNewEpoch}.
 */
import { randomUUID } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { z } from "zod";
import type { ServerRef } from "@teammem/protocol";
import { rowsOf, type Db, type Tx } from "../db/database.js";
import { serverSettings } from "../db/schema.js";

const KEYS = { id: "server_id", epoch: "epoch", origin: "epoch_origin" } as const;

/** The server's identity and epoch, with when and why the epoch started. */
export interface ServerIdentity {
  readonly server: ServerRef;
  /** ISO 8601. */
  readonly epochStartedAt: string;
  /** e.g. "first start", "database restored (database oid changed)", "rotated by an operator". */
  readonly epochReason: string;
}

const EpochValue = z.object({ id: z.uuid(), startedAt: z.string(), reason: z.string() });
type EpochValue = z.infer<typeof EpochValue>;

/**
 * Where the database the epoch started in lives, each piece as text (null: not readable here):
 * - `systemId`: the cluster's system identifier (`pg_control_system()`), new for every initdb;
 * - `databaseOid`: the current database's oid, new for a re-created database;
 * - `timeline`: the WAL timeline, new after a point-in-time recovery or a standby's promotion;
 * - `settingsOid`: the oid of the `server_settings` table, new when the table is re-created;
 * - `epochXmin`: the transaction that wrote the `epoch` row, new when the row is restored.
 * PGlite answers all five (its system identifier is new for every data folder).
 */
const DatabaseOrigin = z.object({
  systemId: z.string().nullable(),
  databaseOid: z.string().nullable(),
  timeline: z.string().nullable(),
  settingsOid: z.string().nullable(),
  epochXmin: z.string().nullable(),
});
type DatabaseOrigin = z.infer<typeof DatabaseOrigin>;

const ORIGIN_LABELS: Record<keyof DatabaseOrigin, string> = {
  systemId: "system identifier",
  databaseOid: "database oid",
  timeline: "timeline",
  settingsOid: "settings table",
  epochXmin: "settings rows",
};


/** The database's origin as it is now. Pieces the role may not read are null. */
async function readOrigin(db: Db | Tx): Promise<DatabaseOrigin> {
  const local = sql`(SELECT oid FROM pg_database WHERE datname = current_database())::text AS "databaseOid",
    to_regclass('server_settings')::oid::text AS "settingsOid",
    (SELECT xmin::text FROM server_settings WHERE key = ${KEYS.epoch}) AS "epochXmin"`;
  try {
    const [row] = rowsOf<DatabaseOrigin>(
      await db.execute(sql`SELECT (pg_control_system()).system_identifier::text AS "systemId",
        substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8) AS "timeline", ${local}`),
    );
    return DatabaseOrigin.parse(row);
  } catch {
    // A role without access to the control data (or a standby): the database-level pieces still tell a restore.
    const [row] = rowsOf<Omit<DatabaseOrigin, "systemId" | "timeline">>(await db.execute(sql`SELECT ${local}`));
    return DatabaseOrigin.parse({ ...row, systemId: null, timeline: null });
  }
}

/** The pieces of `recorded` that differ from `now` (a piece unreadable on either side is not compared). */
function changedPieces(recorded: DatabaseOrigin, now: DatabaseOrigin): string[] {
  return (Object.keys(ORIGIN_LABELS) as (keyof DatabaseOrigin)[])
    .filter((k) => recorded[k] !== null && now[k] !== null && recorded[k] !== now[k])
    .map((k) => ORIGIN_LABELS[k]);
}

async function readSetting(db: Db | Tx, key: string, forUpdate = false): Promise<string | undefined> {
  const query = db.select({ value: serverSettings.value }).from(serverSettings).where(eq(serverSettings.key, key));
  const [row] = forUpdate ? await query.for("update") : await query;
  return row?.value;
}

async function writeSetting(db: Db | Tx, key: string, value: string): Promise<void> {
  await db
    .insert(serverSettings)
    .values({ key, value })
    .onConflictDoUpdate({ target: serverSettings.key, set: { value } });
}

function identityOf(id: string, epoch: EpochValue): ServerIdentity {
  return { server: { id, epoch: epoch.id }, epochStartedAt: epoch.startedAt, epochReason: epoch.reason };
}

/** What one cheap read tells: the stored identity, and whether the database moved since the epoch started. */
interface Observed {
  identity: ServerIdentity | null;
  /** Pieces of the origin that changed; [] when none did; null when no origin is recorded yet. */
  changed: string[] | null;
}

async function observe(db: Db | Tx, forUpdate = false): Promise<Observed> {
  const id = await readSetting(db, KEYS.id);
  const epochText = await readSetting(db, KEYS.epoch, forUpdate);
  const originText = await readSetting(db, KEYS.origin);
  if (id === undefined || epochText === undefined) return { identity: null, changed: null };
  const identity = identityOf(id, EpochValue.parse(JSON.parse(epochText)));
  if (originText === undefined) return { identity, changed: null };
  return { identity, changed: changedPieces(DatabaseOrigin.parse(JSON.parse(originText)), await readOrigin(db)) };
}

/**
 * In one transaction holding the `epoch` row: starts a new epoch when `decide` (given what is
 * stored now) asks for it, and records the origin the epoch lives in.
 * @returns the identity after the transaction.
 */
async function underEpochLock(db: Db | Tx, decide: (observed: Observed) => string | null): Promise<ServerIdentity> {
  // Inside a caller's transaction (an import) this is a savepoint of it.
  return (db as Db).transaction(async (tx) => {
    await tx.insert(serverSettings).values({ key: KEYS.id, value: randomUUID() }).onConflictDoNothing();
    const first: EpochValue = { id: randomUUID(), startedAt: new Date().toISOString(), reason: "first start" };
    await tx.insert(serverSettings).values({ key: KEYS.epoch, value: JSON.stringify(first) }).onConflictDoNothing();
    // Concurrent starters and rotators wait here; the statements below see what the winner committed.
    const observed = await observe(tx, true);
    const reason = decide(observed);
    if (reason !== null) {
      const next: EpochValue = { id: randomUUID(), startedAt: new Date().toISOString(), reason };
      await writeSetting(tx, KEYS.epoch, JSON.stringify(next));
    }
    if (reason !== null || observed.changed === null) await writeSetting(tx, KEYS.origin, JSON.stringify(await readOrigin(tx)));
    const now = await observe(tx);
    return now.identity!;
  });
}

const restoredReason = (changed: string[]) => `database restored or replaced (${changed.join(", ")} changed)`;

/**
 * The server's identity: created on the first call against a database, and a new epoch when the
 * database is not where the current epoch started (a logical restore, a new cluster, a point-in-time
 * recovery; see the module comment). Safe when several processes call it at once on one database.
 * The database must be migrated.
 */
export async function loadServerIdentity(db: Db): Promise<ServerIdentity> {
  const observed = await observe(db);
  if (observed.identity && observed.changed !== null && observed.changed.length === 0) return observed.identity;
  return underEpochLock(db, (o) => (o.changed !== null && o.changed.length > 0 ? restoredReason(o.changed) : null));
}

/**
 * Starts a new epoch now, whatever the database's origin: for a restore or import that cannot be
 * detected (a file-level copy, an import into an existing database). Every client reconciles on
 * its next sync. Running servers see it within their identity cache's lifetime (5 s by default).
 * Given a transaction (an import's), the epoch commits with it.
 * @param reason shown to operators and clients, e.g. "import of backup.jsonl".
 */
export async function startNewEpoch(db: Db | Tx, reason: string): Promise<ServerIdentity> {
  return underEpochLock(db, () => reason);
}
