import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { FastifyInstance } from "fastify";
import { buildApp } from "../src/app.js";
import { issueToken } from "../src/admin/tokens.js";
import { createTestDatabase, DATABASE_KINDS, type TestDatabase } from "../src/testing.js";

describe.each(DATABASE_KINDS)("server on %s", (kind) => {
  let tdb: TestDatabase;
  let app: FastifyInstance;
  beforeAll(async () => {
    tdb = await createTestDatabase(kind, inject("postgresUrl"));
    app = await buildApp({ db: tdb.database.db, jwtSecret: "s".repeat(32) });
  });
  afterAll(async () => {
    await app?.close();
    await tdb?.dispose();
  });

  it("answers /healthz without a token", async () => {
    const res = await app.inject({ url: "/healthz" });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ok: true });
  });

  it("issues a token whose claims carry team and role", async () => {
    const { token } = await issueToken(tdb.database.db, "s".repeat(32), { teamName: "t1", userName: "ann", role: "admin" });
    const claims = app.jwt.decode<{ teamName: string; role: string }>(token);
    expect(claims).toMatchObject({ teamName: "t1", role: "admin" });
  });
});
