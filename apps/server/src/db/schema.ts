/**
 * The one drizzle schema of the server. SQL migrations in /migrations are generated from it
 * (`npm run db:generate -w @teammem/server`), committed, and never edited after merge.
 * snake_case in SQL, camelCase in TypeScript, timestamptz for time.
 */

import { sql } from "drizzle-orm";
import {
  bigint,
  bigserial,
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";

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

/** One team's memory for one repository. `cursor` is the last change cursor handed out in it. */
export const namespaces = pgTable(
  "namespaces",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    teamId: uuid("team_id").notNull().references(() => teams.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    cursor: bigint("cursor", { mode: "number" }).notNull().default(0),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("namespaces_team_name").on(t.teamId, t.name)],
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
    uniqueIndex("entries_namespace_fold_key_live").on(t.namespaceId, t.foldKey).where(sql`NOT ${t.deleted}`),
    /** Prefix searches `fold_key LIKE 'notes/%'` (file/folder clashes) under any collation. */
    index("entries_namespace_fold_key_prefix").on(t.namespaceId, t.foldKey.op("text_pattern_ops")).where(sql`NOT ${t.deleted}`),
    index("entries_namespace_cursor").on(t.namespaceId, t.cursor),
  ],
);

/** Append-only history: every version of every path, tombstones included. Never updated. */
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
    authorId: uuid("author_id").references(() => principals.id, { onDelete: "set null" }),
    authorName: text("author_name").notNull(),
    clientId: text("client_id"),
    opId: text("op_id"),
    cursor: bigint("cursor", { mode: "number" }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("versions_namespace_path_version").on(t.namespaceId, t.path, t.version),
    uniqueIndex("versions_namespace_cursor").on(t.namespaceId, t.cursor),
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
    authorId: uuid("author_id").references(() => principals.id, { onDelete: "set null" }),
    authorName: text("author_name").notNull(),
    clientId: text("client_id"),
    opId: text("op_id").notNull(),
    cursor: bigint("cursor", { mode: "number" }).notNull(),
    /** open | resolved */
    status: text("status").notNull().default("open"),
    resolvedVersion: integer("resolved_version"),
    resolvedAt: timestamp("resolved_at", { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [index("conflicts_namespace_status").on(t.namespaceId, t.status)],
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

/** Audit log: metadata of rejected uploads and client-side blocks. Never content or secret values. */
export const auditEvents = pgTable(
  "audit_events",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    teamId: uuid("team_id").notNull().references(() => teams.id, { onDelete: "cascade" }),
    /** upload_rejected | client_blocked | token_issued | token_revoked ... */
    kind: text("kind").notNull(),
    namespace: text("namespace"),
    path: text("path"),
    code: text("code"),
    principalId: uuid("principal_id"),
    principalName: text("principal_name"),
    clientId: text("client_id"),
    /** [{ ruleId, line, column, fingerprint? }] */
    findings: jsonb("findings"),
    createdAt: createdAt(),
  },
  (t) => [index("audit_events_team_created").on(t.teamId, t.createdAt)],
);

