/**
 * The one drizzle schema of the server. SQL migrations in /migrations are generated from it
 * (`npm run db:generate -w @teammem/server`), committed, and never edited after merge.
 * snake_case in SQL, camelCase in TypeScript, timestamptz for time.
 */

import type { AuditEventKind, AuditFinding, BypassPolicy, BypassReason, ConflictStatus } from "@teammem/protocol";
import { sql } from "drizzle-orm";
import {
  bigint,
  bigserial,
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
  type PgColumn,
} from "drizzle-orm/pg-core";

type Role = "admin" | "member" | "reader";

/**
 * Lower bounds of versions (1, 2, ...; 0 means "no such path" and is never stored as a version),
 * cursors (0: nothing yet; a change's cursor is 1 or more) and sizes, by table and SQL column:
 * CHECK constraints `<table>_<column>_min` (migration 0010), and the backup format's zod
 * (backup/backup-format.ts), so an import cannot bring in a negative version.
 */
export const COLUMN_MINIMUMS = {
  namespaces: { cursor: 0, live_entries: 0 },
  entries: { version: 1, size_bytes: 0, cursor: 1 },
  versions: { version: 1, size_bytes: 0, parent_version: 1, base_version: 0, cursor: 1 },
  renames: { from_version: 1, to_version: 1 },
  conflicts: { base_version: 0, head_version: 0, cursor: 1, resolved_version: 0 },
} as const satisfies Record<string, Record<string, number>>;

/** The CHECK constraints of {@link COLUMN_MINIMUMS} for `table`, whose columns are `columns` (a null value passes). */
function minimumChecks(table: keyof typeof COLUMN_MINIMUMS, columns: Record<string, PgColumn>) {
  return Object.entries(COLUMN_MINIMUMS[table]).map(([name, min]) => {
    const column = Object.values(columns).find((c) => c.name === name);
    if (!column) throw new Error(`COLUMN_MINIMUMS: ${table} has no column ${name}`);
    return check(`${table}_${name}_min`, sql`${column} >= ${sql.raw(String(min))}`);
  });
}

const createdAt = () => timestamp("created_at", { withTimezone: true }).notNull().defaultNow();

/** Server-wide secrets generated on first start (JWT signing key, fingerprint key) unless given by env. */
export const serverSettings = pgTable("server_settings", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
  createdAt: createdAt(),
});

export const teams = pgTable("teams", {
  id: uuid("id").primaryKey().defaultRandom(),
  name: text("name").notNull().unique(),
  /** `immediate`: a bypass request is approved at once; `approval`: it waits for an admin. */
  bypassPolicy: text("bypass_policy").$type<BypassPolicy>().notNull().default("approval"),
  createdAt: createdAt(),
});

/**
 * Each team's fingerprint keys (HMAC keys of scanner fingerprints), numbered 1, 2, ... per team; the
 * highest is current. Issued to the team's clients, so one secret has one fingerprint on every
 * client and on the server of a team, and unrelated fingerprints across teams. Rotating adds a row.
 */
export const teamFingerprintKeys = pgTable(
  "team_fingerprint_keys",
  {
    teamId: uuid("team_id").notNull().references(() => teams.id, { onDelete: "cascade" }),
    keyId: integer("key_id").notNull(),
    /** 64 hex characters (32 random bytes), used as the HMAC key string as is. */
    key: text("key").notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.teamId, t.keyId] })],
);

/**
 * Bypass requests: a member asks that the secret with `fingerprint` (made with the team key
 * `fingerprintKeyId`) be let through for the team. Never the value: where it was found (namespace,
 * path with credentials redacted, line, rule) and why. `approved` ones made with the team's current
 * key are the team's allowed fingerprints (scan policy, server re-scan) until `revoked`.
 * At most one pending or approved request per team, key and fingerprint.
 */
export const bypasses = pgTable(
  "bypasses",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    teamId: uuid("team_id").notNull().references(() => teams.id, { onDelete: "cascade" }),
    /** pending | approved | denied | revoked */
    status: text("status").$type<"pending" | "approved" | "denied" | "revoked">().notNull(),
    fingerprint: text("fingerprint").notNull(),
    fingerprintKeyId: integer("fingerprint_key_id").notNull(),
    ruleId: text("rule_id").notNull(),
    namespace: text("namespace").notNull(),
    path: text("path").notNull(),
    line: integer("line").notNull(),
    column: integer("column"),
    reason: text("reason").$type<BypassReason>().notNull(),
    reasonText: text("reason_text"),
    clientId: text("client_id"),
    requestedById: uuid("requested_by_id"),
    requestedBy: text("requested_by").notNull(),
    requestedAt: timestamp("requested_at", { withTimezone: true }).notNull().defaultNow(),
    /** A user, or `policy` for an approval by the team's `immediate` policy. */
    decidedBy: text("decided_by"),
    decidedAt: timestamp("decided_at", { withTimezone: true }),
    note: text("note"),
    revokedBy: text("revoked_by"),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
    /** The revoking admin's note (why); null when none was given or the bypass was revoked before migration 0013. */
    revokeNote: text("revoke_note"),
  },
  (t) => [
    uniqueIndex("bypasses_team_live_fingerprint")
      .on(t.teamId, t.fingerprintKeyId, t.fingerprint)
      .where(sql`${t.status} IN ('pending', 'approved')`),
    index("bypasses_team_status_requested").on(t.teamId, t.status, t.requestedAt),
    index("bypasses_team_requester").on(t.teamId, t.requestedById, t.requestedAt),
  ],
);

/** A user. Belongs to teams through memberships; acts through tokens from one or more devices. */
export const principals = pgTable("principals", {
  id: uuid("id").primaryKey().defaultRandom(),
  name: text("name").notNull().unique(),
  createdAt: createdAt(),
});

export const memberships = pgTable(
  "memberships",
  {
    teamId: uuid("team_id").notNull().references(() => teams.id, { onDelete: "cascade" }),
    principalId: uuid("principal_id").notNull().references(() => principals.id, { onDelete: "cascade" }),
    /** admin | member | reader */
    role: text("role").notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.teamId, t.principalId] })],
);

/** A device/installation of a principal, identified by the client id it sends. */
export const devices = pgTable(
  "devices",
  {
    principalId: uuid("principal_id").notNull().references(() => principals.id, { onDelete: "cascade" }),
    clientId: text("client_id").notNull(),
    firstSeenAt: createdAt(),
    lastSeenAt: timestamp("last_seen_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.principalId, t.clientId] })],
);

/** Issued JWTs by id (`jti`), so they can be listed and revoked. The token itself is never stored. */
export const tokens = pgTable("tokens", {
  id: uuid("id").primaryKey().defaultRandom(),
  teamId: uuid("team_id").notNull().references(() => teams.id, { onDelete: "cascade" }),
  principalId: uuid("principal_id").notNull().references(() => principals.id, { onDelete: "cascade" }),
  role: text("role").notNull(),
  createdAt: createdAt(),
  expiresAt: timestamp("expires_at", { withTimezone: true }),
  revokedAt: timestamp("revoked_at", { withTimezone: true }),
});

/**
 * One team's memory for one repository. `cursor` is the last change cursor handed out in it,
 * `live_entries` its number of live entries.
 */
export const namespaces = pgTable(
  "namespaces",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    teamId: uuid("team_id").notNull().references(() => teams.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    cursor: bigint("cursor", { mode: "number" }).notNull().default(0),
    /**
     * Number of live (non-deleted) entries, kept by every write of a head in the same statement
     * (heads.ts `commitVersion`), so the entry limit is checked without counting the entries.
     */
    liveEntries: integer("live_entries").notNull().default(0),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("namespaces_team_name").on(t.teamId, t.name), ...minimumChecks("namespaces", t)],
);

/** Head of each path in a namespace (a tombstone head has `deleted` true and no content). */
export const entries = pgTable(
  "entries",
  {
    namespaceId: uuid("namespace_id").notNull().references(() => namespaces.id, { onDelete: "cascade" }),
    path: text("path").notNull(),
    /** pathFoldKey(path): two live paths equal under case folding cannot coexist (a tombstone frees its key). */
    foldKey: text("fold_key").notNull(),
    version: integer("version").notNull(),
    deleted: boolean("deleted").notNull().default(false),
    content: text("content"),
    sha256: text("sha256"),
    sizeBytes: integer("size_bytes").notNull().default(0),
    cursor: bigint("cursor", { mode: "number" }).notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.namespaceId, t.path] }),
    /**
     * One index for both uses of a live fold key: equality (no two live paths equal under case
     * folding; `=` and `= ANY` lookups) and prefix searches `fold_key LIKE 'notes/%'` (file/folder
     * clashes) under any collation (text_pattern_ops has `=` too). A head update is never HOT
     * (`cursor` is indexed), so each index here costs every write (migration 0015 merged two).
     */
    uniqueIndex("entries_namespace_fold_key_live").on(t.namespaceId, t.foldKey.op("text_pattern_ops")).where(sql`NOT ${t.deleted}`),
    index("entries_namespace_cursor").on(t.namespaceId, t.cursor),
    ...minimumChecks("entries", t),
  ],
);

/**
 * Append-only history: every version of every path, tombstones included. Never updated, except by
 * a purge, which removes a version's content and records who purged it, when and why.
 */
export const versions = pgTable(
  "versions",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    namespaceId: uuid("namespace_id").notNull().references(() => namespaces.id, { onDelete: "cascade" }),
    path: text("path").notNull(),
    version: integer("version").notNull(),
    /** write | delete | merge | restore | resolve */
    kind: text("kind").notNull(),
    deleted: boolean("deleted").notNull().default(false),
    content: text("content"),
    sha256: text("sha256"),
    sizeBytes: integer("size_bytes").notNull().default(0),
    /** Version this one was made from (the head it replaced); null for the first. */
    parentVersion: integer("parent_version"),
    /** For merges: the common ancestor the client's edit started from. */
    baseVersion: integer("base_version"),
    /**
     * The principal who wrote this version, or null: none, or one since deleted. Deliberately no
     * foreign key (migration 0016 dropped `ON DELETE SET NULL`): its check took a KEY SHARE lock on
     * the author's principal row for every version inserted, and all writers of one user share
     * that row, so concurrent writes turned the lock into MultiXacts (backend CPU per single write
     * -12%, wall -13% at concurrency 16 without it: apps/server/bench/README.md). What SET NULL
     * did, trigger `principals_forget_authored` (0016) does: deleting a principal nulls the column
     * in its versions and conflicts in the same statement; an import nulls an id naming no
     * principal of the backup (backup/import-backup.ts). `author_name` keeps the name either way.
     */
    authorId: uuid("author_id"),
    authorName: text("author_name").notNull(),
    clientId: text("client_id"),
    opId: text("op_id"),
    cursor: bigint("cursor", { mode: "number" }).notNull(),
    createdAt: createdAt(),
    /** Set when an admin purged this version's content (then null): who, when, why. */
    purgedBy: text("purged_by"),
    purgedAt: timestamp("purged_at", { withTimezone: true }),
    purgeReason: text("purge_reason"),
  },
  (t) => [
    uniqueIndex("versions_namespace_path_version").on(t.namespaceId, t.path, t.version),
    uniqueIndex("versions_namespace_cursor").on(t.namespaceId, t.cursor),
    /** The change feed's purged-versions subquery (store/changes.ts): only purged versions, a tiny index. */
    index("versions_namespace_path_purged").on(t.namespaceId, t.path).where(sql`${t.purgedAt} IS NOT NULL`),
    ...minimumChecks("versions", t),
  ],
);

/**
 * Renames, append-only: version `fromVersion` of `fromPath` (the tombstone the rename wrote, or the
 * head when the old path was deleted already) moved to version `toVersion` of `toPath`, in one
 * rename operation. The change feed and history read it to say "renamed from/to"; a put against
 * that tombstone from a stale base follows the file to `toPath`.
 */
export const renames = pgTable(
  "renames",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    namespaceId: uuid("namespace_id").notNull().references(() => namespaces.id, { onDelete: "cascade" }),
    fromPath: text("from_path").notNull(),
    fromVersion: integer("from_version").notNull(),
    toPath: text("to_path").notNull(),
    toVersion: integer("to_version").notNull(),
    opId: text("op_id").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    index("renames_namespace_from").on(t.namespaceId, t.fromPath, t.fromVersion),
    index("renames_namespace_to").on(t.namespaceId, t.toPath, t.toVersion),
    ...minimumChecks("renames", t),
  ],
);

/** An incoming edit that overlapped the head: kept here so nothing acknowledged is lost. */
export const conflicts = pgTable(
  "conflicts",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    namespaceId: uuid("namespace_id").notNull().references(() => namespaces.id, { onDelete: "cascade" }),
    path: text("path").notNull(),
    baseVersion: integer("base_version").notNull(),
    headVersion: integer("head_version").notNull(),
    deleted: boolean("deleted").notNull().default(false),
    content: text("content"),
    sha256: text("sha256"),
    /** As `versions.author_id`: no foreign key, nulled when the principal is deleted. */
    authorId: uuid("author_id"),
    authorName: text("author_name").notNull(),
    clientId: text("client_id"),
    opId: text("op_id").notNull(),
    cursor: bigint("cursor", { mode: "number" }).notNull(),
    status: text("status").$type<ConflictStatus>().notNull().default("open"),
    resolvedVersion: integer("resolved_version"),
    resolvedAt: timestamp("resolved_at", { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [index("conflicts_namespace_status").on(t.namespaceId, t.status), ...minimumChecks("conflicts", t)],
);

/** Idempotency: the stored result of every operation id, replayed verbatim on a repeat. */
export const operations = pgTable(
  "operations",
  {
    namespaceId: uuid("namespace_id").notNull().references(() => namespaces.id, { onDelete: "cascade" }),
    opId: text("op_id").notNull(),
    /** sha256 of the canonical operation, to detect a key reused for a different operation. */
    requestSha256: text("request_sha256").notNull(),
    result: jsonb("result").notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.namespaceId, t.opId] })],
);

/**
 * The audit log: typed metadata of every security-relevant action, never content, token or secret
 * values. Written and read only by audit/ (its `AuditEventInput` union says which fields each kind
 * sets). Append-only: a trigger (migration 0004) refuses UPDATE, DELETE and TRUNCATE, except the
 * deletes of `teammem_purge_audit_events(cutoff)`, the retention job's one door.
 * `team_id` null: a refused request that named no team (e.g. a forged token).
 */
export const auditEvents = pgTable(
  "audit_events",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    teamId: uuid("team_id").references(() => teams.id, { onDelete: "cascade" }),
    kind: text("kind").$type<AuditEventKind>().notNull(),
    /** Who acted: a principal (no foreign key: the log outlives rows), or null for cli/policy/server. */
    actorId: uuid("actor_id"),
    actorName: text("actor_name"),
    namespace: text("namespace"),
    path: text("path"),
    clientId: text("client_id"),
    code: text("code"),
    findings: jsonb("findings").$type<AuditFinding[]>(),
    fingerprintKeyId: integer("fingerprint_key_id"),
    tokenId: uuid("token_id"),
    targetUser: text("target_user"),
    role: text("role").$type<Role>(),
    previousRole: text("previous_role").$type<Role>(),
    version: integer("version"),
    resultVersion: integer("result_version"),
    conflictId: uuid("conflict_id"),
    bypassId: uuid("bypass_id"),
    reason: text("reason").$type<BypassReason>(),
    reasonText: text("reason_text"),
    note: text("note"),
    policy: text("policy").$type<BypassPolicy>(),
    /** The policy before a `bypass_policy_changed` (null in events recorded before migration 0009). */
    previousPolicy: text("previous_policy").$type<BypassPolicy>(),
    count: integer("count"),
    remoteAddress: text("remote_address"),
    periodStart: timestamp("period_start", { withTimezone: true }),
    periodEnd: timestamp("period_end", { withTimezone: true }),
    /** The server epoch started by an `epoch_rotated` or `backup_imported`, and the one before (the backup's for an import). */
    epoch: uuid("epoch"),
    previousEpoch: uuid("previous_epoch"),
    createdAt: createdAt(),
  },
  (t) => [
    index("audit_events_team_id").on(t.teamId, t.id),
    index("audit_events_created").on(t.createdAt),
    index("audit_events_findings").using("gin", t.findings.op("jsonb_path_ops")),
  ],
);
