/**
 * Opens the server's database: PostgreSQL through `pg` when a URL is given, otherwise an embedded
 * PGlite database in a data folder. Both speak the same SQL and run the same migrations.
 */
import { fileURLToPath } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import { migrate as migratePg } from "drizzle-orm/node-postgres/migrator";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import pg from "pg";
import { databaseError, isStorageFull } from "../errors/database-errors.js";
import { keepLeadingBomInPglite } from "./pglite-text.js";
import { makeTreePrivate, withPrivateUmask } from "./private-files.js";
import * as schema from "./schema.js";

export type Schema = typeof schema;
/** The drizzle database, whichever driver is behind it. Query functions take this or a transaction. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
/** A transaction handle as passed to `db.transaction(async (tx) => ...)`. */
export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

export type DatabaseTarget =
  | {
      kind: "postgres";
      url: string;
      /** Connections in the pool (default 10). */
      poolSize?: number;
      /**
       * Longest wait for a lock, and longest statement, in ms, on every connection of the pool (so in
       * every transaction; migrations run on their own connection without them). Past either,
       * PostgreSQL cancels the statement (55P03 / 57014) and the request is answered 503
       * `database_busy` with Retry-After. Defaults 5000 and 30000.
       */
      lockTimeoutMs?: number;
      statementTimeoutMs?: number;
      /** How long a request waits for a free or new connection before it fails (503), ms. Default 5000. */
      connectTimeoutMs?: number;
    }
  | {
      kind: "pglite";
      dataDir: string;
      /**
       * A data folder to start from instead of running initdb: a tarball made by PGlite's
       * `dumpDataDir()` (gzip or uncompressed). Only with an in-memory `dataDir` ("memory://").
       * Tests use it to start from a migrated template (see `@teammem/server/testing`).
       */
      loadDataDir?: Blob;
    };

export interface Database {
  readonly db: Db;
  readonly kind: DatabaseTarget["kind"];
  /** Applies every migration in /migrations not applied yet. Idempotent. */
  migrate(): Promise<void>;
  /** Closes the pool / the embedded database. */
  close(): Promise<void>;
}

/** Folder of the committed SQL migrations (repository root /migrations). */
export const MIGRATIONS_DIR = fileURLToPath(new URL("../../../../migrations", import.meta.url));

/** Key of the PostgreSQL advisory lock that serialises migrations between processes. */
const MIGRATION_LOCK_KEY = 0x7ea3_3e3;

/**
 * Migrates over one dedicated connection (free of the pool's timeouts) while holding a session
 * advisory lock on it, so two processes
 * starting at once on a fresh database migrate one after the other instead of racing on
 * CREATE TABLE (the second then finds everything applied).
 */
async function migrateWithLock(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK_KEY]);
    await migratePg(drizzlePg(client, { schema }), { migrationsFolder: MIGRATIONS_DIR });
  } finally {
    await client.end(); // ending the session releases the lock
  }
}

/** Opens (but does not migrate) the database described by `target`. */
export async function openDatabase(target: DatabaseTarget): Promise<Database> {
  if (target.kind === "postgres") {
    const pool = new pg.Pool({
      connectionString: target.url,
      max: target.poolSize ?? 10,
      lock_timeout: target.lockTimeoutMs ?? 5000,
      statement_timeout: target.statementTimeoutMs ?? 30_000,
      connectionTimeoutMillis: target.connectTimeoutMs ?? 5000,
    });
    // An idle connection that the server drops (a restart, a terminated backend) is an 'error' event
    // of the pool: without a listener it would end the process. The pool discards that connection
    // and opens a new one on the next query.
    pool.on("error", () => undefined);
    const db = drizzlePg(pool, { schema });
    return {
      db: db as unknown as Db,
      kind: "postgres",
      migrate: () => migrateWithLock(target.url),
      close: () => pool.end(),
    };
  }
  const inMemory = target.dataDir.startsWith("memory://");
  if (target.loadDataDir && !inMemory) throw new Error("loadDataDir is only for an in-memory PGlite database (memory://)");
  keepLeadingBomInPglite();
  // initdb's template files arrive as 0666 whatever the umask: made owner-only right after.
  const client = inMemory
    ? await PGlite.create({ dataDir: target.dataDir, ...(target.loadDataDir ? { loadDataDir: target.loadDataDir } : {}) })
    : await withPrivateUmask(() => PGlite.create(target.dataDir));
  if (!inMemory) await makeTreePrivate(target.dataDir);
  const guarded = stopAtFullDisk(client);
  const db = drizzlePglite({ client: guarded.client, schema });
  return {
    db: db as unknown as Db,
    kind: "pglite",
    migrate: () => migratePglite(db, { migrationsFolder: MIGRATIONS_DIR }),
    // Once the disk filled up, PGlite's close (a checkpoint) may hang or fail: the files hold every
    // committed transaction already (each write goes to the folder as it happens), so it is skipped.
    close: () => (guarded.stopped() ? Promise.resolve() : client.close()),
  };
}

/** Error thrown for every query once the embedded database stopped: SQLSTATE 53100 disk_full, as PostgreSQL's. */
class EmbeddedDatabaseStopped extends Error {
  readonly code = "53100";
  constructor(override readonly cause: unknown) {
    super("the embedded database stopped after its disk filled up (No space left on device): free space, then restart the server");
  }
}

/**
 * `client` behind a guard for a full disk: after PGlite reported one (SQLSTATE 53100, "No space
 * left on device"), its in-process state is broken (try19 F9: the next transactions fail with
 * `cannot drop active portal ""`, then a query blocks the event loop for good: no probe, no
 * SIGTERM). So the guard stops at the first such error: every later `query`, `exec` or
 * `transaction` throws {@link EmbeddedDatabaseStopped} (a 503 `storage_full` for requests, a
 * failing `/readyz`) without reaching PGlite. A restart, with space freed, opens the folder again.
 */
function stopAtFullDisk(client: PGlite): { client: PGlite; stopped: () => boolean } {
  let stoppedBy: unknown = null;
  const guard = async <T>(run: () => Promise<T>): Promise<T> => {
    if (stoppedBy) throw new EmbeddedDatabaseStopped(stoppedBy);
    try {
      return await run();
    } catch (err) {
      if (!stoppedBy && isStorageFull(err)) {
        stoppedBy = err;
        // PGlite's own message (`could not extend file "base/5/16385": No space left on device`), never
        // drizzle's wrapper, which quotes the statement and its parameters (content).
        process.stderr.write(`teammem-server: the embedded database's disk is full (${databaseError(err)?.message ?? "No space left on device"}); it is no longer used: requests get 503 storage_full, /readyz fails; free space, then restart the server\n`);
      }
      throw err;
    }
  };
  const wrapped = new Proxy(client, {
    get(target, prop) {
      if (prop === "query") return (...args: Parameters<PGlite["query"]>) => guard(() => target.query(...args));
      if (prop === "exec") return (...args: Parameters<PGlite["exec"]>) => guard(() => target.exec(...args));
      if (prop === "transaction") return (...args: Parameters<PGlite["transaction"]>) => guard(() => target.transaction(...args));
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { client: wrapped, stopped: () => stoppedBy !== null };
}

/** The rows of a raw `db.execute(sql`…`)` result (pg and PGlite both answer `{ rows }`). */
export const rowsOf = <T>(result: unknown): T[] => (result as { rows: T[] }).rows;
