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
 *
 * A new epoch the server starts itself (a restore detected) and an operator's rotation are an
 * `epoch_rotated` audit event in every team, committed with the epoch; an import records its own
 * `backup_imported` instead.
 */
import { randomUUID } from "node:crypto";
import { eq, inArray, sql } from "drizzle-orm";
import { z } from "zod";
import type { ServerRef } from "@teammem/protocol";
import { recordServerWideAuditEvent, SERVER_ACTOR, type Actor } from "../audit/events.js";
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

/**
 * The id, epoch and origin settings in one statement, so from one snapshot: read one by one, a new
 * epoch committed between two reads would pair the old epoch with the new one's origin (a torn
 * read that finds nothing changed and answers the replaced epoch).
 */
async function readSettings(db: Db | Tx): Promise<{ id?: string; epoch?: string; origin?: string }> {
  const rows = await db
    .select({ key: serverSettings.key, value: serverSettings.value })
    .from(serverSettings)
    .where(inArray(serverSettings.key, [KEYS.id, KEYS.epoch, KEYS.origin]));
  const value = (key: string) => rows.find((r) => r.key === key)?.value;
  return { id: value(KEYS.id), epoch: value(KEYS.epoch), origin: value(KEYS.origin) };
}

/** Holds the `epoch` row until the transaction ends: starters and rotators take it before deciding. */
async function lockEpochRow(tx: Tx): Promise<void> {
  await tx.select({ key: serverSettings.key }).from(serverSettings).where(eq(serverSettings.key, KEYS.epoch)).for("update");
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

async function observe(db: Db | Tx): Promise<Observed> {
  const { id, epoch: epochText, origin: originText } = await readSettings(db);
  if (id === undefined || epochText === undefined) return { identity: null, changed: null };
  const identity = identityOf(id, EpochValue.parse(JSON.parse(epochText)));
  if (originText === undefined) return { identity, changed: null };
  return { identity, changed: changedPieces(DatabaseOrigin.parse(JSON.parse(originText)), await readOrigin(db)) };
}

/** A new epoch and the one it replaced, read under the `epoch` row's lock: two rotations at once chain (A->B, B->C). */
export interface EpochChange {
  readonly previous: ServerIdentity;
  readonly current: ServerIdentity;
}

/**
 * In one transaction holding the `epoch` row: starts a new epoch when `decide` (given what is
 * stored now) asks for it, and records the origin the epoch lives in; with `auditActor`, a new
 * epoch is also an `epoch_rotated` event (once per team) of that transaction.
 * @returns the identity before (under the lock; the first start's when there was none) and after.
 */
async function underEpochLock(
  db: Db | Tx,
  decide: (observed: Observed) => string | null,
  auditActor: Actor | null,
): Promise<EpochChange> {
  // Inside a caller's transaction (an import) this is a savepoint of it.
  return (db as Db).transaction(async (tx) => {
    await tx.insert(serverSettings).values({ key: KEYS.id, value: randomUUID() }).onConflictDoNothing();
    const first: EpochValue = { id: randomUUID(), startedAt: new Date().toISOString(), reason: "first start" };
    await tx.insert(serverSettings).values({ key: KEYS.epoch, value: JSON.stringify(first) }).onConflictDoNothing();
    // Concurrent starters and rotators wait here; the statements below see what the winner committed.
    await lockEpochRow(tx);
    const observed = await observe(tx);
    const reason = decide(observed);
    if (reason !== null) {
      const next: EpochValue = { id: randomUUID(), startedAt: new Date().toISOString(), reason };
      await writeSetting(tx, KEYS.epoch, JSON.stringify(next));
    }
    if (reason !== null || observed.changed === null) await writeSetting(tx, KEYS.origin, JSON.stringify(await readOrigin(tx)));
    const previous = observed.identity!;
    const current = (await observe(tx)).identity!;
    if (reason !== null && auditActor !== null) {
      await recordServerWideAuditEvent(tx, {
        actor: auditActor,
        kind: "epoch_rotated",
        epoch: current.server.epoch,
        previousEpoch: previous.server.epoch,
        reasonText: reason,
      });
    }
    return { previous, current };
  });
}

const restoredReason = (changed: string[]) => `database restored or replaced (${changed.join(", ")} changed)`;

/**
 * The server's identity: created on the first call against a database, and a new epoch when the
 * database is not where the current epoch started (a logical restore, a new cluster, a point-in-time
 * recovery; see the module comment). Such an epoch commits with its `epoch_rotated` audit event in
 * every team (actor `server`, `reasonText` the epoch's reason naming what changed). Safe when several
 * processes call it at once on one database: one of them starts the epoch and records the event.
 * The database must be migrated.
 */
export async function loadServerIdentity(db: Db): Promise<ServerIdentity> {
  const observed = await observe(db);
  if (observed.identity && observed.changed !== null && observed.changed.length === 0) return observed.identity;
  const change = await underEpochLock(db, (o) => (o.changed !== null && o.changed.length > 0 ? restoredReason(o.changed) : null), SERVER_ACTOR);
  return change.current;
}

/**
 * Starts a new epoch now, whatever the database's origin: for a restore or import that cannot be
 * detected (a file-level copy, an import into an existing database). Every client reconciles on
 * its next sync. Running servers see it within their identity cache's lifetime (5 s by default).
 * Given a transaction (an import's), the epoch commits with it. Records no audit event (the caller
 * records its own, e.g. `backup_imported`); see {@link rotateEpoch} for an audited rotation.
 * @param reason shown to operators and clients, e.g. "import of backup.jsonl".
 */
export async function startNewEpoch(db: Db | Tx, reason: string): Promise<ServerIdentity> {
  return (await underEpochLock(db, () => reason, null)).current;
}

/**
 * An operator's rotation: starts a new epoch as {@link startNewEpoch} does and records it as an
 * `epoch_rotated` audit event in every team (by `actor`, `reasonText` = `reason`), in one
 * transaction that reads the epoch it replaces under the `epoch` row's lock, so concurrent
 * rotations each record the epoch the one before them started.
 * @returns the epoch replaced and the new one.
 */
export async function rotateEpoch(db: Db, reason: string, actor: Actor): Promise<EpochChange> {
  const { previous, current } = await underEpochLock(db, () => reason, actor);
  return { previous, current };
}
