/**
 * A real teammem server for client tests: `buildApp` on a fresh migrated database (PostgreSQL or
 * PGlite), listening on 127.0.0.1, port 0 at first. `stop()` closes the listener (the database
 * stays), `start()` listens again on the same port, so a client's stored URL keeps working.
 */
import { sql } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { buildApp, type AppOptions } from "../../../server/src/app.js";
import { issueToken } from "../../../server/src/admin/tokens.js";
import type { Database } from "../../../server/src/db/database.js";
import pg from "pg";
import { inject } from "vitest";
import { openDatabase } from "../../../server/src/db/database.js";
import { createPostgresDatabase, createTestDatabase, type DatabaseKind, type TestDatabase } from "../../../../test/support/databases.js";

const JWT_SECRET = "client-tests-".padEnd(40, "s");

export interface TestServer {
  readonly url: string;
  readonly database: Database;
  /** A member token of team `team` for `user`. */
  token(user: string, team?: string): Promise<string>;
  start(): Promise<void>;
  stop(): Promise<void>;
  dispose(): Promise<void>;
}

/**
 * Waits (up to 5 s) until no session is connected to the database of `url`. pg's `Pool.end()`
 * resolves before its backends have exited; dropping the database WITH (FORCE) then would kill
 * them mid-exit, and the dying client emits an unhandled FATAL 57P01.
 */
async function waitForNoSessions(url: string): Promise<void> {
  const name = new URL(url).pathname.slice(1);
  const admin = new pg.Client({ connectionString: inject("postgresUrl") });
  await admin.connect();
  try {
    for (let i = 0; i < 100; i++) {
      const { rows } = await admin.query<{ n: string }>("SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1", [name]);
      if (Number(rows[0]?.n ?? 0) === 0) return;
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    await admin.end();
  }
}

/** Like `createTestDatabase`, but PostgreSQL is dropped only once every session has gone. */
async function createDatabase(kind: DatabaseKind): Promise<TestDatabase> {
  if (kind === "pglite") return createTestDatabase(kind);
  const { url, drop } = await createPostgresDatabase();
  const database = await openDatabase({ kind: "postgres", url });
  await database.migrate();
  return {
    database,
    url,
    dispose: async () => {
      await database.close();
      await waitForNoSessions(url);
      await drop();
    },
  };
}

export async function startTestServer(kind: DatabaseKind, limits?: AppOptions["limits"]): Promise<TestServer> {
  const tdb: TestDatabase = await createDatabase(kind);
  let app: FastifyInstance | undefined;
  let port = 0;
  const start = async () => {
    if (app) return;
    app = await buildApp({ db: tdb.database.db, jwtSecret: JWT_SECRET, fingerprintKey: "k", limits: { rateLimitMax: 0, ...limits } });
    await app.listen({ host: "127.0.0.1", port });
    const address = app.server.address();
    if (address && typeof address === "object") port = address.port;
  };
  const stop = async () => {
    await app?.close();
    app = undefined;
  };
  await start();
  return {
    url: `http://127.0.0.1:${port}`,
    database: tdb.database,
    token: async (user, team = "default") =>
      (await issueToken(tdb.database.db, JWT_SECRET, { teamName: team, userName: user, role: "member" })).token,
    start,
    stop,
    dispose: async () => {
      await stop();
      await tdb.dispose();
    },
  };
}

/** Runs `query` on either driver; both answer `{ rows }`. */
async function rowsOf<T>(database: Database, query: Parameters<Database["db"]["execute"]>[0]): Promise<T[]> {
  return ((await database.db.execute(query)) as unknown as { rows: T[] }).rows;
}

/** Every row of every table in the public schema, as text: what "anywhere in the database" means. */
export async function dumpAllRows(database: Database): Promise<string> {
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

/** Rows of `versions` for `path`, oldest first. */
export async function versionsOf(database: Database, path: string): Promise<{ version: number; kind: string; content: string | null }[]> {
  const rows = await rowsOf<{ version: number; kind: string; content: string | null }>(
    database,
    sql`SELECT version, kind, content FROM versions WHERE path = ${path} ORDER BY version`,
  );
  return rows.map((r) => ({ version: Number(r.version), kind: r.kind, content: r.content }));
}
