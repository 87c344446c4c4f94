/**
 * `@teammem/server/testing`: fresh, migrated databases for tests of the server and of whatever runs
 * against it. One PostgreSQL database per call (created on a PostgreSQL server the caller names,
 * e.g. `inject("postgresUrl")` under vitest) or one in-memory PGlite, dropped/closed by `dispose`.
 * Reads no environment and imports no test runner.
 */
import { randomBytes } from "node:crypto";
import { sql, type SQL } from "drizzle-orm";
import pg from "pg";
import { openDatabase, type Database } from "./db/database.js";

export type DatabaseKind = "postgres" | "pglite";
/** Every kind the server supports; `describe.each(DATABASE_KINDS)` runs a suite on each. */
export const DATABASE_KINDS: readonly DatabaseKind[] = ["postgres", "pglite"];

export interface TestDatabase {
  readonly database: Database;
  /** Connection URL (postgres only), e.g. for a server process started by the test. */
  readonly url?: string;
  dispose(): Promise<void>;
}

/** A database of its own on a PostgreSQL server; `drop` removes it. */
export interface PostgresTestDatabase {
  readonly url: string;
  drop(): Promise<void>;
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = "/" + name;
  return u.toString();
}

async function admin<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * Creates an empty database (not migrated) on the PostgreSQL server at `serverUrl`, as a user
 * allowed to CREATE DATABASE, e.g. `postgres://postgres@127.0.0.1:5432/postgres`.
 * @throws Error when `serverUrl` is empty (no PostgreSQL server was found for the tests).
 */
export async function createPostgresDatabase(serverUrl: string): Promise<PostgresTestDatabase> {
  if (!serverUrl)
    throw new Error(
      "No PostgreSQL server for tests: set TEST_DATABASE_URL to a server the tests may create databases on " +
        "(e.g. postgres://postgres@127.0.0.1:5432/postgres), or run Docker for testcontainers.",
    );
  const name = "teammem_test_" + randomBytes(6).toString("hex");
  await admin(serverUrl, (c) => c.query(`CREATE DATABASE ${name}`));
  return {
    url: withDatabase(serverUrl, name),
    drop: () =>
      admin(serverUrl, async (c) => {
        // Let closing pools finish their goodbyes first: a forced drop would hand still-open
        // connections a FATAL 57P01 that surfaces as an unhandled error in the test run.
        for (let i = 0; i < 50; i++) {
          const { rows } = await c.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1", [name]);
          if (rows[0].n === 0) break;
          await new Promise((r) => setTimeout(r, 100));
        }
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      }),
  };
}

/**
 * Opens and migrates a fresh database of `kind`: for "postgres" a new database on the server at
 * `postgresServerUrl` (see {@link createPostgresDatabase}), for "pglite" an in-memory one (the URL
 * is not used).
 */
export async function createTestDatabase(kind: DatabaseKind, postgresServerUrl = ""): Promise<TestDatabase> {
  if (kind === "pglite") {
    const database = await openDatabase({ kind: "pglite", dataDir: "memory://" });
    await database.migrate();
    return { database, dispose: () => database.close() };
  }
  const { url, drop } = await createPostgresDatabase(postgresServerUrl);
  const database = await openDatabase({ kind: "postgres", url });
  await database.migrate();
  return {
    database,
    url,
    dispose: async () => {
      await database.close();
      await drop();
    },
  };
}

/** Runs `query` on either driver (pg and PGlite both answer `{ rows }`). */
export async function rowsOf<T>(database: Pick<Database, "db">, query: SQL): Promise<T[]> {
  return ((await database.db.execute(query)) as unknown as { rows: T[] }).rows;
}

/** Every row of every table in the public schema, as text: what "anywhere in the database" means. */
export async function dumpAllRows(database: Pick<Database, "db">): Promise<string> {
  const tables = await rowsOf<{ table_name: string }>(
    database,
    sql`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'`,
  );
  let dump = "";
  for (const { table_name } of tables) {
    const rows = await rowsOf<{ row: string }>(database, sql.raw(`SELECT t::text AS row FROM "${table_name}" t`));
    dump += rows.map((r) => r.row).join("\n") + "\n";
  }
  return dump;
}
