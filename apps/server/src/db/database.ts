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
import * as schema from "./schema.js";

export type Schema = typeof schema;
/** The drizzle database, whichever driver is behind it. Query functions take this or a transaction. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
/** A transaction handle as passed to `db.transaction(async (tx) => ...)`. */
export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

export type DatabaseTarget =
  | { kind: "postgres"; url: string; poolSize?: number }
  | { kind: "pglite"; dataDir: string };

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
 * Runs `migrate` while holding a session advisory lock on its own connection, so two processes
 * starting at once on a fresh database migrate one after the other instead of racing on
 * CREATE TABLE (the second then finds everything applied).
 */
async function withMigrationLock(url: string, migrate: () => Promise<void>): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK_KEY]);
    await migrate();
  } finally {
    await client.end(); // ending the session releases the lock
  }
}

/** Opens (but does not migrate) the database described by `target`. */
export async function openDatabase(target: DatabaseTarget): Promise<Database> {
  if (target.kind === "postgres") {
    const pool = new pg.Pool({ connectionString: target.url, max: target.poolSize ?? 10 });
    const db = drizzlePg(pool, { schema });
    return {
      db: db as unknown as Db,
      kind: "postgres",
      migrate: () => withMigrationLock(target.url, () => migratePg(db, { migrationsFolder: MIGRATIONS_DIR })),
      close: () => pool.end(),
    };
  }
  const client = await PGlite.create(target.dataDir);
  const db = drizzlePglite(client, { schema });
  return {
    db: db as unknown as Db,
    kind: "pglite",
    migrate: () => migratePglite(db, { migrationsFolder: MIGRATIONS_DIR }),
    close: () => client.close(),
  };
}
