/**
 * The backup file of `teammem-server export` / `import`: JSON Lines, UTF-8, one JSON object a line.
 * - line 1, the header: `{ format: "teammem-backup", formatVersion: 1, exportedAt, serverVersion,
 *   server: { id, epoch }, tables: { <table>: [<column>, ...] } }`;
 * - then one line per row, `{ table, row }`, tables in {@link BACKUP_TABLES} order (parents before
 *   children), each table's rows in primary-key order; `row` holds every column by its SQL name as
 *   PostgreSQL's `row_to_json` writes it (timestamps ISO 8601 with offset and microseconds, bigint
 *   as numbers, jsonb as JSON);
 * - last, the end line `{ end: { rows: { <table>: <count> } } }`: a file without it is truncated.
 * The row schemas are derived from the drizzle schema, so a new column is carried without a change
 * here; a new table must be added to {@link BACKUP_TABLES} (a test compares the list with the database).
 */
import { getTableConfig, type PgColumn, type PgTable } from "drizzle-orm/pg-core";
import { z } from "zod";
import { AUDIT_EVENT_KINDS, AuditFinding, BypassPolicy, BypassReason, BypassStatus, ConflictStatus, OperationResult, RoleName, sha256Hex } from "@teammem/protocol";
import * as schema from "../db/schema.js";
import { MIN_JWT_SECRET_LENGTH } from "../settings.js";

export const BACKUP_FORMAT = "teammem-backup";
export const BACKUP_FORMAT_VERSION = 1;

/**
 * Stable codes of an import's refusals, printed after the message (`... (backup_invalid_line)`).
 * A code never changes meaning.
 */
export const BACKUP_ERRORS = {
  /** The file (or stdin) could not be read. */
  backup_unreadable: "the backup could not be read",
  /** Line 1 is not a teammem backup header. */
  backup_not_a_backup: "not a teammem backup",
  /** The header's format version is not one this server reads. */
  backup_format_version: "unsupported backup format version",
  /** The backup's tables or columns differ from this server's schema (made by another server version). */
  backup_schema_mismatch: "the backup was made with another database schema",
  /** A line is not valid UTF-8 JSON, not a row of a known table, a row with a missing, extra or mistyped column, or out of order. */
  backup_invalid_line: "invalid line",
  /** The database refused a row (a reference to a row the backup lacks, a value out of range). */
  backup_row_refused: "row refused by the database",
  /** A row whose key (or another unique column set) an earlier line of the backup holds already. */
  backup_duplicate_row: "a row appears twice",
  /** The end line is missing, or its counts differ from the rows read: the file was cut short or edited. */
  backup_truncated: "the backup is incomplete",
  /**
   * The rows are each valid but do not fit together the way the server keeps them (a namespace's
   * cursor below its changes, an entry without its version, a live-entry count that differs): a
   * server on such a database would fail on them. Checked after every row is read.
   */
  backup_inconsistent: "the rows contradict each other",
  /** The target database already holds teams, users, namespaces or audit events. */
  backup_target_not_empty: "the target database is not empty",
} as const;
export type BackupErrorCode = keyof typeof BACKUP_ERRORS;

/** An import refused: nothing was written (the transaction rolled back). `line` is 1-based when one line is to blame. */
export class BackupError extends Error {
  constructor(
    readonly code: BackupErrorCode,
    message: string,
    readonly line: number | null = null,
  ) {
    super(line === null ? message : `line ${line}: ${message}`);
    this.name = "BackupError";
  }
}

/**
 * Every table a backup carries, parents before children (an import inserts in this order, so every
 * foreign key finds its row). `server_settings` carries the server id and the JWT signing key
 * (tokens stay valid), never the epoch: an import starts a new one.
 */
export const BACKUP_TABLES = [
  schema.serverSettings,
  schema.teams,
  schema.principals,
  schema.memberships,
  schema.devices,
  schema.tokens,
  schema.teamFingerprintKeys,
  schema.bypasses,
  schema.namespaces,
  schema.entries,
  schema.versions,
  schema.renames,
  schema.conflicts,
  schema.operations,
  schema.auditEvents,
] as const satisfies readonly PgTable[];

/** `server_settings` keys that belong to one database, not to the data: never exported, never imported. */
export const LOCAL_SETTINGS = ["epoch", "epoch_origin"] as const;

/** One table as the backup sees it: SQL name, columns in table order, primary-key columns, row schema. */
export interface BackupTable {
  readonly name: string;
  readonly columns: readonly string[];
  readonly primaryKey: readonly string[];
  /** Whether the table has a bigserial id whose sequence an import must move past the imported ids. */
  readonly serialColumns: readonly string[];
  readonly row: z.ZodType<Record<string, unknown>>;
}

/**
 * Every integer the server stores is a count, a version, a cursor, an id, a line or a column: never
 * negative. A backup's integers are held to that (a negative version or cursor would make every
 * later read or write of its namespace fail).
 */
const INT32 = { min: 0, max: 2 ** 31 - 1 };
const INT53 = { min: 0, max: Number.MAX_SAFE_INTEGER };

/**
 * Text columns holding one of a fixed set of values (`table.column`), as the protocol names them: a
 * row with another value is refused (the server's replies are checked against these sets, so a
 * stored stranger would fail every reply that shows it).
 */
const ENUMERATED: Record<string, readonly string[]> = {
  "teams.bypass_policy": BypassPolicy.options,
  "memberships.role": RoleName.options,
  "tokens.role": RoleName.options,
  "bypasses.status": BypassStatus.options,
  "bypasses.reason": BypassReason.options,
  "conflicts.status": ConflictStatus.options,
  "audit_events.kind": AUDIT_EVENT_KINDS,
  "audit_events.role": RoleName.options,
  "audit_events.previous_role": RoleName.options,
  "audit_events.reason": BypassReason.options,
  "audit_events.policy": BypassPolicy.options,
  "audit_events.previous_policy": BypassPolicy.options,
};
const noNul = (s: string) => !s.includes("\u0000");
const timestamp = z.iso.datetime({ offset: true });

/**
 * JSON columns whose value the server replies with (a stored operation's result, replayed to a client
 * resending it; an audit event's findings): held to the protocol's schema of that reply.
 */
const JSON_SHAPES: Record<string, z.ZodType> = {
  "operations.result": OperationResult,
  "audit_events.findings": z.array(AuditFinding),
};

/** The lower bound of a column of `table` ({@link schema.COLUMN_MINIMUMS}: versions, cursors, sizes), or undefined. */
function minimumOf(table: string, column: string): number | undefined {
  return (schema.COLUMN_MINIMUMS as Record<string, Record<string, number>>)[table]?.[column];
}

/**
 * The zod schema of one column's JSON value (null allowed when the column is nullable); integers
 * at least their {@link schema.COLUMN_MINIMUMS} bound (1 for versions), like the database's CHECK
 * constraints, else at least 0.
 */
function columnSchema(table: string, column: PgColumn): z.ZodType {
  let base: z.ZodType;
  const min = minimumOf(table, column.name);
  const allowed = ENUMERATED[`${table}.${column.name}`];
  const shape = JSON_SHAPES[`${table}.${column.name}`];
  switch (allowed ? "enumerated" : shape ? "shaped" : column.columnType) {
    case "shaped":
      // Checked against the shape, stored as read (the shape's parse could drop or add keys).
      base = z.json().superRefine((value, ctx) => {
        const parsed = shape!.safeParse(value);
        if (!parsed.success) for (const issue of parsed.error.issues) ctx.addIssue({ code: "custom", path: issue.path, message: issue.message });
      });
      break;
    case "enumerated":
      base = z.string().refine((v) => allowed!.includes(v), `must be one of ${allowed!.join(", ")}`);
      break;
    case "PgUUID":
      base = z.guid();
      break;
    case "PgText":
      base = z.string().refine(noNul, "a NUL character cannot be stored");
      break;
    case "PgInteger":
      base = z.number().int().min(min ?? INT32.min).max(INT32.max);
      break;
    case "PgBigInt53":
    case "PgBigSerial53":
      base = z.number().int().min(min ?? INT53.min).max(INT53.max);
      break;
    case "PgBoolean":
      base = z.boolean();
      break;
    case "PgTimestamp":
      base = timestamp;
      break;
    case "PgJsonb":
      base = z.json();
      break;
    default:
      throw new Error(`backup format: column ${column.name} has type ${column.columnType}, which the backup does not know yet`);
  }
  return column.notNull ? base : base.nullable();
}

function describe(table: PgTable): BackupTable {
  const config = getTableConfig(table);
  const primaryKey = config.primaryKeys[0]?.columns.map((c) => c.name) ?? config.columns.filter((c) => c.primary).map((c) => c.name);
  const shape: Record<string, z.ZodType> = {};
  for (const column of config.columns) shape[column.name] = columnSchema(config.name, column);
  return {
    name: config.name,
    columns: config.columns.map((c) => c.name),
    primaryKey,
    serialColumns: config.columns.filter((c) => c.columnType === "PgBigSerial53").map((c) => c.name),
    row: withSettingRules(config.name, withContentHash(z.strictObject(shape), config.columns.map((c) => c.name))) as unknown as z.ZodType<Record<string, unknown>>,
  };
}


/**
 * For `server_settings`: a `jwt_secret` row shorter than {@link MIN_JWT_SECRET_LENGTH} characters is
 * refused (an edited or foreign backup would otherwise install a guessable signing key).
 */
function withSettingRules(table: string, row: z.ZodType): z.ZodType {
  if (table !== "server_settings") return row;
  return row.superRefine((r, ctx) => {
    const { key, value } = r as { key?: unknown; value?: unknown };
    if (key === "jwt_secret" && typeof value === "string" && value.length < MIN_JWT_SECRET_LENGTH) {
      ctx.addIssue({ code: "custom", path: ["value"], message: `jwt_secret must be at least ${MIN_JWT_SECRET_LENGTH} characters (the JWT_SECRET rule)` });
    }
  });
}

/**
 * For a table holding `content` beside its `sha256` (entries, versions, conflicts): a row whose
 * content is present must carry that content's hash (and, with `size_bytes`, its UTF-8 length),
 * so an edited backup cannot store content that clients would check against another hash.
 */
function withContentHash(row: z.ZodObject, columns: readonly string[]): z.ZodType {
  if (!columns.includes("content") || !columns.includes("sha256")) return row;
  const sized = columns.includes("size_bytes");
  return row.superRefine((r, ctx) => {
    if (typeof r.content !== "string") return;
    if (r.sha256 !== sha256Hex(r.content)) ctx.addIssue({ code: "custom", path: ["sha256"], message: "is not the SHA-256 of the row's content (the content or the hash was edited)" });
    if (sized && r.size_bytes !== Buffer.byteLength(r.content, "utf8")) ctx.addIssue({ code: "custom", path: ["size_bytes"], message: "is not the UTF-8 length of the row's content" });
  });
}

/** {@link BACKUP_TABLES} described, in order. */
export const backupTables: readonly BackupTable[] = BACKUP_TABLES.map(describe);
for (const key of [...Object.keys(ENUMERATED), ...Object.keys(JSON_SHAPES)]) {
  const [table, column] = key.split(".");
  if (!backupTables.some((t) => t.name === table && t.columns.includes(column!))) throw new Error(`backup format: ENUMERATED or JSON_SHAPES names ${key}, which is no column`);
}

/** Line 1 of a backup. */
export const BackupHeader = z.strictObject({
  format: z.literal(BACKUP_FORMAT),
  formatVersion: z.literal(BACKUP_FORMAT_VERSION),
  /** ISO 8601: when the export's snapshot was taken. */
  exportedAt: timestamp,
  /** The exporting server's version (`teammem-server --version`). */
  serverVersion: z.string(),
  /** The exporting server's identity and epoch at export time. */
  server: z.strictObject({ id: z.guid(), epoch: z.guid() }),
  /** Every table with its columns, in file order. */
  tables: z.record(z.string(), z.array(z.string())),
});
export type BackupHeader = z.infer<typeof BackupHeader>;

/** The last line of a backup: rows written per table. */
export const BackupEnd = z.strictObject({
  end: z.strictObject({ rows: z.record(z.string(), z.number().int().nonnegative()) }),
});
export type BackupEnd = z.infer<typeof BackupEnd>;

/** A row line's outer shape (the row itself is checked against its table's schema). */
export const BackupRowLine = z.strictObject({ table: z.string(), row: z.record(z.string(), z.unknown()) });

/** The message of zod's first issues, with the path of each (`row.path: expected string`). */
export function describeIssues(error: z.ZodError, prefix = ""): string {
  return error.issues
    .slice(0, 3)
    .map((i) => {
      const path = [prefix, ...i.path.map(String)].filter(Boolean).join(".");
      return path ? `${path}: ${i.message}` : i.message;
    })
    .join("; ");
}
