/**
 * `teammem-server export` and `teammem-server import FILE|-`: the whole database as a backup file
 * (JSON Lines, src/backup/backup-format.ts) and back, to restore a backup or to move between the
 * embedded database and PostgreSQL. Both take `--data-dir` / DATABASE_URL like every command.
 */
import { open, type FileHandle } from "node:fs/promises";
import type { Command } from "@commander-js/extra-typings";
import { BackupError } from "../backup/backup-format.js";
import { exportBackup } from "../backup/export-backup.js";
import { importBackup } from "../backup/import-backup.js";
import { readLines } from "../backup/read-lines.js";
import { DEFAULT_LIMITS } from "../limits.js";
import { readServerEnv } from "../server.js";
import { CliError, dataDirOption, err, EXIT, withStore, writeData, type CliContext } from "./context.js";

const total = (rows: Record<string, number>) => Object.values(rows).reduce((a, b) => a + b, 0);
const counts = (rows: Record<string, number>) =>
  Object.entries(rows)
    .filter(([, n]) => n > 0)
    .map(([t, n]) => `${t} ${n}`)
    .join(", ");

export function register(program: Command, ctx: CliContext): void {
  program
    .command("export")
    .description("write the whole database (teams, users, tokens, namespaces, every version, conflicts, audit log) to stdout as JSON Lines, streamed")
    .addOption(dataDirOption())
    .action(async (o) => {
      // The backup holds the JWT signing key: a file it goes to (`> backup.jsonl`) is made 0600 before a byte is written.
      let toFile = false;
      try {
        toFile = (await ctx.io.privateStdoutFile?.()) ?? false;
      } catch (e) {
        throw new CliError(`cannot make the output file owner-only (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); nothing was exported: the backup holds the JWT signing key`, EXIT.failure);
      }
      await withStore(ctx, { dataDir: o.dataDir, purpose: "export" }, async (store) => {
        const summary = await exportBackup(store.database.db, (chunk) => writeData(ctx, chunk));
        err(
          ctx,
          `exported ${total(summary.rows)} rows (${counts(summary.rows)}) from server ${summary.header.server.id} epoch ${summary.header.server.epoch} ` +
            `(${store.description}); the file holds the JWT signing key: keep it as safe as the database${toFile ? " (written owner-only, mode 0600)" : ""}`,
        );
      });
    });

  program
    .command("import")
    .description(
      "load a backup made by `teammem-server export` into an empty database, in one transaction, and start a new epoch so clients reconcile",
    )
    .argument("<file>", "the backup file, or - for stdin")
    .addOption(dataDirOption())
    .action(async (file, o) => {
      let source: AsyncIterable<Uint8Array | string>;
      let handle: FileHandle | null = null;
      let laxMode: string | undefined;
      if (file === "-") {
        if (!ctx.io.stdin) throw new CliError("no standard input to read here: give the backup's file name", EXIT.usage);
        source = ctx.io.stdin();
      } else {
        // Opened before the database, so a wrong name changes nothing (not even a new data folder).
        try {
          handle = await open(file, "r");
          if ((await handle.stat()).isDirectory()) throw Object.assign(new Error("a folder"), { code: "EISDIR" });
        } catch (e) {
          await handle?.close();
          throw new CliError(`cannot read ${file}: ${unreadableReason(e as NodeJS.ErrnoException)} (backup_unreadable)`, EXIT.failure);
        }
        // Read anyway (a restore is no time to refuse one), but say that others could read the signing
        // key: once the file proved to be a backup (a header line), never of any file named by mistake.
        const mode = (await handle.stat()).mode & 0o777;
        if ((mode & 0o077) !== 0) {
          laxMode = `teammem-server: warning: ${file} is readable or writable by other users (mode 0${mode.toString(8)}) and holds the JWT signing key: chmod 600 it`;
        }
        source = handle.createReadStream({ highWaterMark: 256 * 1024 });
      }
      await withStore(ctx, { dataDir: o.dataDir, purpose: "import" }, async (store) => {
        const env = readServerEnv(ctx.env);
        try {
          const summary = await importBackup(store.database.db, readLines(source), {
            source: file === "-" ? "stdin" : file,
            maxEntryBytes: env.TEAMMEM_MAX_ENTRY_BYTES ?? DEFAULT_LIMITS.maxEntryBytes,
            maxEntriesPerNamespace: env.TEAMMEM_MAX_ENTRIES_PER_NAMESPACE ?? DEFAULT_LIMITS.maxEntriesPerNamespace,
          });
          if (laxMode) err(ctx, laxMode);
          err(ctx, `imported ${total(summary.rows)} rows (${counts(summary.rows)}) into ${store.description}`);
          err(
            ctx,
            `server ${summary.identity.server.id}, new epoch ${summary.identity.server.epoch} (the backup's was ${summary.header.server.epoch}): clients reconcile on their next sync`,
          );
        } catch (e) {
          if (laxMode && e instanceof BackupError && e.code !== "backup_not_a_backup" && e.code !== "backup_unreadable") err(ctx, laxMode);
          if (e instanceof BackupError) throw new CliError(`import refused, nothing was imported: ${e.message} (${e.code})`, EXIT.failure);
          throw e;
        }
      }).finally(() => handle?.close().catch(() => undefined));
    });
}

/** Why a backup file could not be opened, in words (the errno code in parentheses). */
function unreadableReason(e: NodeJS.ErrnoException): string {
  const words: Record<string, string> = {
    ENOENT: "no such file",
    EACCES: "permission denied",
    EISDIR: "it is a folder, not a backup file",
    ENOTDIR: "a part of the path is not a folder",
  };
  return e.code && words[e.code] ? `${words[e.code]} (${e.code})` : e.message;
}
