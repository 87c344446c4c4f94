/**
 * A lock or statement timeout inside a write answers 503 `database_busy` with Retry-After, never
 * 500, and leaves nothing half-written: the same request sent again once the lock is gone is applied
 * exactly once (issue 12). Real PostgreSQL; the lock is held by another connection.
 */
import { randomUUID } from "node:crypto";
import type { FastifyInstance } from "fastify";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { buildApp } from "../../src/app.js";
import { issueToken } from "../../src/admin/tokens.js";
import { openDatabase, type Database } from "../../src/db/database.js";
import { transientDatabaseFailure } from "../../src/errors/database-errors.js";
import { createPostgresDatabase, type PostgresTestDatabase } from "../../src/testing.js";

const SECRET = "busy-test-secret-".padEnd(40, "b");

describe("writes meeting a held lock on PostgreSQL", () => {
  let pgdb: PostgresTestDatabase;
  let database: Database;
  let app: FastifyInstance;
  let holder: pg.Client;
  let auth: { authorization: string };

  beforeAll(async () => {
    pgdb = await createPostgresDatabase(inject("postgresUrl"));
    database = await openDatabase({ kind: "postgres", url: pgdb.url, lockTimeoutMs: 200, statementTimeoutMs: 1500 });
    await database.migrate();
    app = await buildApp({ db: database.db, jwtSecret: SECRET, limits: { rateLimitMax: 0 } });
    auth = { authorization: `Bearer ${(await issueToken(database.db, SECRET, { teamName: "busy", userName: "bea", role: "member" })).token}` };
    holder = new pg.Client({ connectionString: pgdb.url });
    await holder.connect();
  });
  afterAll(async () => {
    await holder?.end();
    await app?.close();
    await database?.close();
    await pgdb?.drop();
  });

  const batch = (operations: unknown[]) => app.inject({ method: "POST", url: "/v1/namespaces/busy-ns/batch", headers: auth, payload: { operations } });
  const holdNamespaceLock = async () => {
    await holder.query("BEGIN");
    await holder.query("SELECT cursor FROM namespaces WHERE name = 'busy-ns' FOR UPDATE");
  };

  it("answers 503 database_busy with Retry-After while another transaction holds the namespace, then applies the resent batch once", async () => {
    expect((await batch([{ opId: randomUUID(), path: "team/first.md", baseVersion: 0, content: "first\n" }])).statusCode).toBe(200);
    const ops = [
      { opId: randomUUID(), path: "team/a.md", baseVersion: 0, content: "a\n" },
      { opId: randomUUID(), path: "team/b.md", baseVersion: 0, content: "b\n" },
    ];
    await holdNamespaceLock();
    try {
      const busy = await batch(ops);
      expect({ status: busy.statusCode, retryAfter: busy.headers["retry-after"], body: busy.json() }).toEqual({
        status: 503,
        retryAfter: "1",
        body: { code: "database_busy", message: expect.stringContaining("timed out"), details: { retryAfterMs: 1000 } },
      });
      const put = await app.inject({ method: "PUT", url: "/v1/namespaces/busy-ns/entry?path=team/c.md", headers: auth, payload: { baseVersion: 0, content: "c\n" } });
      expect({ status: put.statusCode, code: put.json().code, retryAfter: put.headers["retry-after"] }).toEqual({ status: 503, code: "database_busy", retryAfter: "1" });
    } finally {
      await holder.query("ROLLBACK");
    }
    const resent = await batch(ops);
    expect(resent.statusCode).toBe(200);
    expect(resent.json().results.map((r: { status: string }) => r.status)).toEqual(["applied", "applied"]);
    const changes = (await app.inject({ url: "/v1/namespaces/busy-ns/changes?since=0", headers: auth })).json();
    expect(changes.changes.map((c: { path: string; version: number }) => `${c.path}@${c.version}`).sort()).toEqual(["team/a.md@1", "team/b.md@1", "team/first.md@1"]);
  });

  it("classifies a statement over statement_timeout and a lock wait over lock_timeout as timeouts", async () => {
    const slow = await database.db.execute("SELECT pg_sleep(5)").catch((e: unknown) => e);
    expect(transientDatabaseFailure(slow)).toBe("timeout");
    await holdNamespaceLock();
    try {
      const locked = await database.db.execute("SELECT 1 FROM namespaces WHERE name = 'busy-ns' FOR UPDATE").catch((e: unknown) => e);
      expect(transientDatabaseFailure(locked)).toBe("timeout");
    } finally {
      await holder.query("ROLLBACK");
    }
  });

  it("classifies a refused connection as the database being unavailable, and ordinary errors as none", async () => {
    const unreachable = await openDatabase({ kind: "postgres", url: "postgres://postgres@127.0.0.1:1/none", connectTimeoutMs: 2000 });
    const refused = await unreachable.db.execute("SELECT 1").catch((e: unknown) => e);
    await unreachable.close();
    expect(transientDatabaseFailure(refused)).toBe("unavailable");
    const syntax = await database.db.execute("SELEC 1").catch((e: unknown) => e);
    expect(transientDatabaseFailure(syntax)).toBe(null);
  });
});

describe("a PostgreSQL database that is gone or refuses the server's login", () => {
  it("answers 503 database_busy with Retry-After, not 500, when the database was dropped under a running server", async () => {
    // Before: a new connection's FATAL 3D000 (database does not exist) fell through as 500.
    const gone = await createPostgresDatabase(inject("postgresUrl"));
    const db = await openDatabase({ kind: "postgres", url: gone.url });
    await db.migrate();
    const app = await buildApp({ db: db.db, jwtSecret: SECRET, limits: { rateLimitMax: 0 } });
    try {
      const headers = { authorization: `Bearer ${(await issueToken(db.db, SECRET, { teamName: "gone", userName: "gil", role: "member" })).token}` };
      expect((await app.inject({ url: "/v1/namespaces", headers })).statusCode).toBe(200);
      const admin = new pg.Client({ connectionString: inject("postgresUrl") });
      await admin.connect();
      await admin.query(`DROP DATABASE ${new URL(gone.url).pathname.slice(1)} WITH (FORCE)`);
      await admin.end();
      for (const request of [
        { url: "/v1/namespaces" },
        { method: "POST" as const, url: "/v1/namespaces/gone-ns/batch", payload: { operations: [{ opId: randomUUID(), path: "team/a.md", baseVersion: 0, content: "a\n" }] } },
      ]) {
        const res = await app.inject({ ...request, headers });
        expect({ url: request.url, status: res.statusCode, retryAfter: res.headers["retry-after"], code: res.json().code }).toEqual({
          url: request.url,
          status: 503,
          retryAfter: "1",
          code: "database_busy",
        });
      }
    } finally {
      await app.close();
      await db.close();
      await gone.drop();
    }
  });

  it("classifies a login the server refuses (no such role, database or password) as the database being unavailable", async () => {
    const url = new URL(inject("postgresUrl"));
    url.username = "no_such_role_teammem";
    const refusedLogin = await openDatabase({ kind: "postgres", url: url.toString(), connectTimeoutMs: 2000 });
    const err = await refusedLogin.db.execute("SELECT 1").catch((e: unknown) => e);
    await refusedLogin.close();
    expect(transientDatabaseFailure(err)).toBe("unavailable");
  });
});
