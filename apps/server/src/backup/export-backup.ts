/**
 * `teammem-server export`: the whole database as a backup file (see backup-format.ts), streamed.
 * One REPEATABLE READ, READ ONLY transaction gives a consistent snapshot while servers keep
 * writing (PostgreSQL); each table is read through a server-side cursor, `batchRows` rows per
 * FETCH, and each batch is handed to `write` and awaited before the next FETCH: memory holds one
 * batch whatever the size of the database, and a slow reader (a pipe, a disk) slows the export
 * down instead of filling memory.
 */
import { sql } from "drizzle-orm";
import { rowsOf, type Db } from "../db/database.js";
import { loadServerIdentity } from "../identity/server-identity.js";
import { SERVER_VERSION } from "../version.js";
import { BACKUP_FORMAT, BACKUP_FORMAT_VERSION, backupTables, LOCAL_SETTINGS, type BackupHeader } from "./backup-format.js";

export interface ExportOptions {
  /** Rows per FETCH (and per `write`), default 1000. */
  batchRows?: number;
}

/** What an export wrote. */
export interface ExportSummary {
  header: BackupHeader;
  /** Rows per table. */
  rows: Record<string, number>;
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * Writes the backup of `db` to `write`: the header line, every row, the end line; every call gets
 * whole lines (each ending in "\n") and is awaited before the next read.
 * @param write receives chunks of at most `batchRows` lines; its promise is the backpressure
 * @returns the header and the row counts written
 */
export async function exportBackup(db: Db, write: (chunk: string) => Promise<void> | void, options: ExportOptions = {}): Promise<ExportSummary> {
  const batchRows = options.batchRows ?? 1000;
  // Reading the identity may create it (a database never started): before the read-only snapshot.
  const identity = await loadServerIdentity(db);
  return db.transaction(
    async (tx) => {
      await tx.execute(sql`SET LOCAL TIME ZONE 'UTC'`);
      const at = rowsOf<{ at: string }>(await tx.execute(sql`SELECT to_json(now())#>>'{}' AS at`))[0]!.at;
      const header: BackupHeader = {
        format: BACKUP_FORMAT,
        formatVersion: BACKUP_FORMAT_VERSION,
        exportedAt: at,
        serverVersion: SERVER_VERSION,
        server: identity.server,
        tables: Object.fromEntries(backupTables.map((t) => [t.name, [...t.columns]])),
      };
      await write(JSON.stringify(header) + "\n");
      const rows: Record<string, number> = {};
      for (const table of backupTables) {
        const where =
          table.name === "server_settings" ? `WHERE t."key" NOT IN (${LOCAL_SETTINGS.map((k) => `'${k}'`).join(", ")})` : "";
        const order = table.primaryKey.map((c) => `t.${quote(c)}`).join(", ");
        const prefix = `{"table":${JSON.stringify(table.name)},"row":`;
        await tx.execute(
          sql.raw(`DECLARE teammem_export NO SCROLL CURSOR FOR SELECT row_to_json(t)::text AS r FROM ${quote(table.name)} t ${where} ORDER BY ${order}`),
        );
        let count = 0;
        for (;;) {
          const batch = rowsOf<{ r: string }>(await tx.execute(sql.raw(`FETCH ${batchRows} FROM teammem_export`)));
          if (batch.length === 0) break;
          count += batch.length;
          let chunk = "";
          for (const { r } of batch) chunk += `${prefix}${r}}\n`;
          await write(chunk);
          if (batch.length < batchRows) break;
        }
        await tx.execute(sql`CLOSE teammem_export`);
        rows[table.name] = count;
      }
      await write(JSON.stringify({ end: { rows } }) + "\n");
      return { header, rows };
    },
    { isolationLevel: "repeatable read", accessMode: "read only" },
  );
}
