/**
 * A real teammem server for client tests, in the test's process: `buildApp` on a fresh migrated
 * database (PostgreSQL or PGlite), listening on 127.0.0.1, port 0 at first. `stop()` closes the listener (the database
 * stays), `start()` listens again on the same port, so a client's stored URL keeps working.
 */
import { sql } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { afterAll, inject } from "vitest";
import { buildApp, issueToken, type AppOptions, type Database } from "@teammem/server";
import { rowsOf, TestDatabasePool, type DatabaseKind, type TestDatabase } from "@teammem/server/testing";

export { dumpAllRows } from "@teammem/server/testing";

/** The JWT secret of the client tests' servers. */
export const JWT_SECRET = "client-tests-".padEnd(40, "s");

export interface TestServer {
  readonly url: string;
  readonly database: Database;
  /** Every request the server received, as "METHOD /path?query", in order (tests count them). */
  readonly requests: string[];
  /** The parsed JSON body of every request that had one, with its "METHOD /path?query", in order. */
  readonly bodies: { readonly request: string; readonly body: unknown }[];
  /** A token of team `team` for `user`, with `role` (default member), expiring after `expiresInSeconds` (default never). */
  token(user: string, team?: string, role?: "admin" | "member" | "reader", expiresInSeconds?: number): Promise<string>;
  start(): Promise<void>;
  stop(): Promise<void>;
  dispose(): Promise<void>;
}

/**
 * A listener that keeps its port: `start()` builds an app with `build()` and listens on 127.0.0.1,
 * on a port the OS picks the first time and on the same port after each `stop()` (which closes
 * the app; starting a started one does nothing). `url()` is http://127.0.0.1:<port> (port 0
 * before the first start).
 */
export function reopenableListener(build: () => Promise<FastifyInstance>): { start(): Promise<void>; stop(): Promise<void>; url(): string } {
  let app: FastifyInstance | undefined;
  let port = 0;
  return {
    start: async () => {
      if (app) return;
      app = await build();
      await app.listen({ host: "127.0.0.1", port });
      const address = app.server.address();
      if (address && typeof address === "object") port = address.port;
    },
    stop: async () => {
      await app?.close();
      app = undefined;
    },
    url: () => `http://127.0.0.1:${port}`,
  };
}

/**
 * The databases of this test file's servers: a server's `dispose()` empties its database and hands
 * it to the next `startTestServer` of the file (a fresh one costs seconds; see TestDatabasePool).
 * Vitest evaluates this module again for each test file, so the pool is the file's; its afterAll
 * drops what is left.
 */
const databases = new TestDatabasePool(inject("postgresUrl"));
afterAll(() => databases.close());

/**
 * A server on an empty migrated database of `kind` (a new one, or one an earlier test of the file
 * used and `dispose()` emptied), with `limits`; rate limiting off unless `limits` sets it.
 */
export async function startTestServer(kind: DatabaseKind, limits?: AppOptions["limits"]): Promise<TestServer> {
  const tdb: TestDatabase = await databases.take(kind);
  const requests: string[] = [];
  const bodies: { request: string; body: unknown }[] = [];
  const { start, stop, url } = reopenableListener(async () => {
    const app = await buildApp({ db: tdb.database.db, jwtSecret: JWT_SECRET, limits: { rateLimitMax: 0, ...limits } });
    app.addHook("onRequest", async (request) => void requests.push(`${request.method} ${request.url}`));
    app.addHook("preHandler", async (request) => void (request.body === undefined || bodies.push({ request: `${request.method} ${request.url}`, body: request.body })));
    return app;
  });
  await start();
  return {
    url: url(),
    database: tdb.database,
    requests,
    bodies,
    token: async (user, team = "default", role = "member", expiresInSeconds) =>
      (await issueToken(tdb.database.db, JWT_SECRET, { teamName: team, userName: user, role, ...(expiresInSeconds ? { expiresInSeconds } : {}) })).token,
    start,
    stop,
    dispose: async () => {
      await stop();
      await tdb.dispose();
    },
  };
}

/** Rows of `versions` for `path`, oldest first. */
export async function versionsOf(database: Database, path: string): Promise<{ version: number; kind: string; content: string | null }[]> {
  const rows = await rowsOf<{ version: number; kind: string; content: string | null }>(
    database,
    sql`SELECT version, kind, content FROM versions WHERE path = ${path} ORDER BY version`,
  );
  return rows.map((r) => ({ version: Number(r.version), kind: r.kind, content: r.content }));
}
