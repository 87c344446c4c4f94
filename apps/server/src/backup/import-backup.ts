/**
 * `teammem-server import`: a backup file (see backup-format.ts) into an empty database, in one
 * transaction: every line is checked (zod) before its row is written, and the rows together once all
 * are written (check-consistency.ts); a refusal names its line (when one is to blame) and
 * a stable code ({@link BackupError}), and nothing of a refused import stays. Rows are inserted in
 * batches (`json_populate_recordset`, so PostgreSQL itself converts every value: timestamps keep
 * their microseconds); memory holds one batch. The import ends by moving the id sequences past the
 * imported ids and starting a new server epoch, so every client reconciles on its next sync.
 */
import { sql } from "drizzle-orm";
import { rowsOf, type Db, type Tx } from "../db/database.js";
import { databaseError } from "../errors/database-errors.js";
import { startNewEpoch, type ServerIdentity } from "../identity/server-identity.js";
import { CLI_ACTOR, recordServerWideAuditEvent } from "../audit/events.js";
import {
  BACKUP_FORMAT,
  BACKUP_FORMAT_VERSION,
  BackupEnd,
  BackupError,
  BackupHeader,
  BackupRowLine,
  backupTables,
  describeIssues,
  LOCAL_SETTINGS,
  type BackupTable,
} from "./backup-format.js";
import { checkConsistency } from "./check-consistency.js";
import { LineTooLongError, type Line } from "./read-lines.js";

export interface ImportOptions {
  /** Where the backup came from, for the new epoch's reason (e.g. "backup.jsonl", "stdin"). */
  source: string;
  /** Rows per INSERT, default 500 (a batch is also cut at 4 MB of JSON). */
  batchRows?: number;
  /**
   * Largest version content accepted, in UTF-8 bytes: the importing server's TEAMMEM_MAX_ENTRY_BYTES,
   * so an import cannot store what the server would refuse to take. Unset: no check.
   */
  maxEntryBytes?: number;
  /**
   * Most live (non-deleted) entries a namespace may hold: the importing server's
   * TEAMMEM_MAX_ENTRIES_PER_NAMESPACE, so an import cannot fill a namespace past what the server
   * would let it grow to (its writes would then refuse every new entry). Unset: no check.
   */
  maxEntriesPerNamespace?: number;
}

export interface ImportSummary {
  header: BackupHeader;
  /** Rows imported per table. */
  rows: Record<string, number>;
  /** The server identity after the import: the backup's server id, a new epoch. */
  identity: ServerIdentity;
}

const BATCH_BYTES = 4 * 1024 * 1024;
const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** The database's own message of a failed statement (drizzle wraps it as "Failed query: ..."). */
function databaseMessage(e: unknown): string {
  const cause = (e as { cause?: unknown }).cause ?? e;
  const { message, detail } = cause as { message?: string; detail?: string };
  return [message ?? String(cause), detail].filter(Boolean).join(": ");
}

/**
 * The refusal of one row the database refused, in our words (never PostgreSQL's detail, which
 * quotes the row's values): SQLSTATE 23505 a duplicate (`backup_duplicate_row`), 23503 a reference
 * to a row the backup lacks, 23514 a value out of range; each naming the constraint (a name of our
 * schema). Anything else: `backup_row_refused` with the database's message.
 */
function rowRefusal(e: unknown, table: string, line: number): BackupError {
  const refused = databaseError(e);
  const constraint = typeof refused?.constraint === "string" ? ` (constraint ${refused.constraint})` : "";
  switch (refused?.code) {
    case "23505":
      return new BackupError("backup_duplicate_row", `a ${table} row with the same key as an earlier line${constraint}: every row may appear once in a backup`, line);
    case "23503":
      return new BackupError("backup_row_refused", `a ${table} row refers to a row the backup does not hold${constraint}`, line);
    case "23514":
      return new BackupError("backup_row_refused", `a ${table} row holds a value out of range${constraint}`, line);
    default:
      return new BackupError("backup_row_refused", `${table} row refused by the database: ${databaseMessage(e)}`, line);
  }
}

interface Pending {
  table: BackupTable;
  rows: Record<string, unknown>[];
  lines: number[];
  bytes: number;
}

/** Inserts `rows` of `table` in one statement, inside a savepoint (a refusal leaves the transaction usable). */
async function insertRows(tx: Tx, table: BackupTable, rows: Record<string, unknown>[]): Promise<void> {
  const name = quote(table.name);
  const upsert =
    table.name === "server_settings" ? sql.raw(` ON CONFLICT ("key") DO UPDATE SET "value" = EXCLUDED."value", "created_at" = EXCLUDED."created_at"`) : sql``;
  await tx.transaction(async (sp) => {
    await sp.execute(sql`INSERT INTO ${sql.raw(name)} SELECT * FROM json_populate_recordset(NULL::${sql.raw(name)}, ${JSON.stringify(rows)}::json)${upsert}`);
  });
}

async function flush(tx: Tx, pending: Pending): Promise<void> {
  if (pending.rows.length === 0) return;
  try {
    await insertRows(tx, pending.table, pending.rows);
  } catch (batchError) {
    // Find the row to blame, one at a time (each in its own savepoint).
    for (let i = 0; i < pending.rows.length; i++) {
      try {
        await insertRows(tx, pending.table, [pending.rows[i]!]);
      } catch (e) {
        throw rowRefusal(e, pending.table.name, pending.lines[i]!);
      }
    }
    throw new BackupError("backup_row_refused", `${pending.table.name} rows refused by the database: ${databaseMessage(batchError)}`, pending.lines[0]!);
  }
  pending.rows = [];
  pending.lines = [];
  pending.bytes = 0;
}

/**
 * Nulls the author of every version and conflict naming a principal the backup does not hold: the
 * author is gone, as when a principal is deleted (`author_id` has no foreign key, schema.ts), and
 * `author_name` keeps the name. A backup holds such an id when a write raced its author's deletion.
 */
async function forgetMissingAuthors(tx: Tx): Promise<void> {
  for (const table of ["versions", "conflicts"]) {
    await tx.execute(
      sql.raw(`UPDATE "${table}" SET "author_id" = NULL WHERE "author_id" IS NOT NULL AND NOT EXISTS (SELECT 1 FROM "principals" p WHERE p."id" = "${table}"."author_id")`),
    );
  }
}

/** Tables (other than server_settings) that hold rows already. */
async function nonEmptyTables(tx: Tx): Promise<string[]> {
  const found: string[] = [];
  for (const table of backupTables) {
    if (table.name === "server_settings") continue;
    const [row] = rowsOf<{ any: boolean }>(await tx.execute(sql.raw(`SELECT EXISTS (SELECT 1 FROM ${quote(table.name)}) AS "any"`)));
    if (row?.any) found.push(table.name);
  }
  return found;
}

/** JSON.parse reviver refusing a `__proto__` key: copied into a record it would set a prototype instead of failing the strict column check. */
function refuseProtoKey(line: Line) {
  return (key: string, value: unknown): unknown => {
    if (key === "__proto__") throw new BackupError("backup_invalid_line", "a forbidden key __proto__", line.number);
    return value;
  };
}

function parseJson(line: Line): unknown {
  if (line.text === null) throw new BackupError("backup_invalid_line", "not valid UTF-8", line.number);
  try {
    return line.text.includes('"__proto__"') ? JSON.parse(line.text, refuseProtoKey(line)) : JSON.parse(line.text);
  } catch (err) {
    if (err instanceof BackupError) throw err;
    if (line.unterminated) throw new BackupError("backup_truncated", "the last line is cut short (not complete JSON, no newline): the file was truncated", line.number);
    throw new BackupError("backup_invalid_line", line.text.trim() === "" ? "an empty line" : "not JSON", line.number);
  }
}

/** Checks line 1 and that the backup's tables and columns are this server's. */
function readHeader(line: Line | undefined): BackupHeader {
  if (!line) throw new BackupError("backup_not_a_backup", "the file is empty: not a teammem backup");
  let value: unknown;
  try {
    value = parseJson(line);
  } catch (e) {
    if (e instanceof BackupError && e.code === "backup_invalid_line") throw new BackupError("backup_not_a_backup", "not a teammem backup (line 1 is not JSON)", 1);
    throw e;
  }
  const format = (value as { format?: unknown } | null)?.format;
  if (typeof value !== "object" || value === null || format !== BACKUP_FORMAT) {
    throw new BackupError("backup_not_a_backup", `not a teammem backup (line 1 is not a header with "format": "${BACKUP_FORMAT}")`, 1);
  }
  const version = (value as { formatVersion?: unknown }).formatVersion;
  if (version !== BACKUP_FORMAT_VERSION) {
    throw new BackupError(
      "backup_format_version",
      `backup format version ${JSON.stringify(version)}; this server reads version ${BACKUP_FORMAT_VERSION} (import it with the teammem-server version that exported it)`,
      1,
    );
  }
  const parsed = BackupHeader.safeParse(value);
  if (!parsed.success) throw new BackupError("backup_invalid_line", `invalid header: ${describeIssues(parsed.error)}`, 1);
  const header = parsed.data;
  const problems: string[] = [];
  for (const table of backupTables) {
    const theirs = header.tables[table.name];
    if (!theirs) problems.push(`table ${table.name} missing`);
    else if (theirs.join(",") !== table.columns.join(",")) problems.push(`${table.name} has columns (${theirs.join(", ")}), this server (${table.columns.join(", ")})`);
  }
  for (const name of Object.keys(header.tables)) if (!backupTables.some((t) => t.name === name)) problems.push(`table ${name} unknown here`);
  if (problems.length > 0) {
    throw new BackupError(
      "backup_schema_mismatch",
      `the backup (teammem-server ${header.serverVersion}) does not match this server's tables: ${problems.join("; ")}. ` +
        "Import it with the teammem-server version that exported it, then upgrade that server (its start migrates)",
      1,
    );
  }
  return header;
}

/**
 * Imports the backup read from `lines` into `db`, which must hold no team, user, namespace or audit
 * event (its server settings are replaced by the backup's, the epoch aside). The import commits with
 * a `backup_imported` audit event (actor `cli`: only the server's command line imports) in every
 * imported team: the new epoch, the backup's, the rows imported, and the epoch's reason.
 * @throws BackupError (nothing written) for every refusal; the caller prints `message (code)`
 */
export async function importBackup(db: Db, lines: AsyncIterable<Line>, options: ImportOptions): Promise<ImportSummary> {
  const batchRows = options.batchRows ?? 500;
  const iterator = lines[Symbol.asyncIterator]();
  const next = async (): Promise<Line | undefined> => {
    try {
      const r = await iterator.next();
      return r.done ? undefined : r.value;
    } catch (e) {
      if (e instanceof LineTooLongError) throw new BackupError("backup_invalid_line", `longer than ${e.maxBytes} bytes`, e.line);
      if (e instanceof BackupError) throw e;
      throw new BackupError("backup_unreadable", `the backup could not be read: ${(e as Error).message}`);
    }
  };
  try {
    return await db.transaction(async (tx) => {
      const header = readHeader(await next());
      const occupied = await nonEmptyTables(tx);
      if (occupied.length > 0) {
        throw new BackupError(
          "backup_target_not_empty",
          `the database already holds data (${occupied.join(", ")}): import into a new, empty database (a new --data-dir, or a new PostgreSQL database in DATABASE_URL)`,
        );
      }
      const rows: Record<string, number> = Object.fromEntries(backupTables.map((t) => [t.name, 0]));
      let tableIndex = 0;
      let pending: Pending = { table: backupTables[0]!, rows: [], lines: [], bytes: 0 };
      let end: { line: number; rows: Record<string, number> } | null = null;
      let last = 1;
      for (let line = await next(); line; line = await next()) {
        last = line.number;
        const value = parseJson(line);
        if (end) throw new BackupError("backup_invalid_line", `a line after the end line (line ${end.line})`, line.number);
        if (typeof value === "object" && value !== null && "end" in value) {
          const parsed = BackupEnd.safeParse(value);
          if (!parsed.success) throw new BackupError("backup_invalid_line", `invalid end line: ${describeIssues(parsed.error)}`, line.number);
          end = { line: line.number, rows: parsed.data.end.rows };
          continue;
        }
        const outer = BackupRowLine.safeParse(value);
        if (!outer.success) throw new BackupError("backup_invalid_line", `not a row line ({"table": ..., "row": {...}}): ${describeIssues(outer.error)}`, line.number);
        const index = backupTables.findIndex((t) => t.name === outer.data.table);
        if (index === -1) throw new BackupError("backup_invalid_line", `unknown table ${JSON.stringify(outer.data.table)}`, line.number);
        if (index < tableIndex) {
          throw new BackupError("backup_invalid_line", `a ${outer.data.table} row after the ${backupTables[tableIndex]!.name} rows (the file's order was changed)`, line.number);
        }
        const table = backupTables[index]!;
        const row = table.row.safeParse(outer.data.row);
        if (!row.success) throw new BackupError("backup_invalid_line", `invalid ${table.name} row: ${describeIssues(row.error)}`, line.number);
        const size = table.name === "versions" ? Number(row.data["size_bytes"]) : 0;
        if (options.maxEntryBytes !== undefined && size > options.maxEntryBytes) {
          throw new BackupError(
            "backup_invalid_line",
            `a version of ${size} bytes, over this server's entry limit of ${options.maxEntryBytes} bytes (TEAMMEM_MAX_ENTRY_BYTES): set it at least that high for the import and for the server`,
            line.number,
          );
        }
        // A namespaces row's live_entries is checked against its entries by checkConsistency, so
        // checking the count here bounds the entries the import stores.
        const live = table.name === "namespaces" ? Number(row.data["live_entries"]) : 0;
        if (options.maxEntriesPerNamespace !== undefined && live > options.maxEntriesPerNamespace) {
          throw new BackupError(
            "backup_invalid_line",
            `namespace ${JSON.stringify(row.data["name"])} holds ${live} live entries, over this server's limit of ${options.maxEntriesPerNamespace} entries per namespace (TEAMMEM_MAX_ENTRIES_PER_NAMESPACE): set it at least that high for the import and for the server`,
            line.number,
          );
        }
        if (table.name === "server_settings" && (LOCAL_SETTINGS as readonly string[]).includes(String(row.data["key"]))) {
          throw new BackupError("backup_invalid_line", `server setting ${String(row.data["key"])} belongs to one database and is never imported`, line.number);
        }
        if (index !== tableIndex || pending.rows.length >= batchRows || pending.bytes >= BATCH_BYTES) {
          await flush(tx, pending);
          pending = { table, rows: [], lines: [], bytes: 0 };
          tableIndex = index;
        }
        pending.rows.push(row.data);
        pending.lines.push(line.number);
        pending.bytes += line.text!.length;
        rows[table.name] = rows[table.name]! + 1;
      }
      if (!end) throw new BackupError("backup_truncated", `no end line after line ${last}: the file was cut short`);
      await flush(tx, pending);
      const differ = backupTables.filter((t) => end.rows[t.name] !== rows[t.name]).map((t) => `${t.name}: ${end.rows[t.name] ?? "none"} listed, ${rows[t.name]} read`);
      if (differ.length > 0) throw new BackupError("backup_truncated", `the end line's counts differ from the rows read (${differ.join("; ")}): lines are missing`, end.line);
      await forgetMissingAuthors(tx);
      await checkConsistency(tx);
      for (const table of backupTables) {
        for (const column of table.serialColumns) {
          await tx.execute(
            sql.raw(
              `SELECT setval(pg_get_serial_sequence('${quote(table.name)}', '${column}'), coalesce(max(${quote(column)}), 1), max(${quote(column)}) IS NOT NULL) FROM ${quote(table.name)}`,
            ),
          );
        }
      }
      const reason = `import of ${options.source} (exported ${header.exportedAt} from server ${header.server.id} epoch ${header.server.epoch})`;
      const identity = await startNewEpoch(tx, reason);
      const count = Object.values(rows).reduce((a, b) => a + b, 0);
      await recordServerWideAuditEvent(tx, { actor: CLI_ACTOR, kind: "backup_imported", epoch: identity.server.epoch, previousEpoch: header.server.epoch, count, reasonText: reason });
      return { header, rows, identity };
    });
  } finally {
    await iterator.return?.();
  }
}
