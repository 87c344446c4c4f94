/**
 * A server on a fresh database of one kind, with tokens for two teams, and small helpers to call
 * the namespace routes through `inject`. Used by the route tests; closed by `close()`.
 */
import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { inject } from "vitest";
import { buildApp } from "../../src/app.js";
import { issueToken } from "../../src/admin/tokens.js";
import type { Db } from "../../src/db/database.js";
import type { Limits } from "../../src/limits.js";
import { createTestDatabase, type DatabaseKind, type TestDatabase } from "../../src/testing.js";

const SECRET = "test-jwt-secret-".repeat(3);

export interface Harness {
  app: FastifyInstance;
  db: Db;
  /** Bearer tokens: team "acme" member/reader/admin, team "other" member. */
  tokens: { member: string; member2: string; reader: string; admin: string; otherTeam: string };
  call(method: "GET" | "PUT" | "POST" | "DELETE", url: string, token: string, payload?: unknown): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

export async function createHarness(kind: DatabaseKind, limits: Partial<Limits> = {}): Promise<Harness> {
  const tdb: TestDatabase = await createTestDatabase(kind, inject("postgresUrl"));
  const db = tdb.database.db;
  const app = await buildApp({ db, jwtSecret: SECRET, limits: { rateLimitMax: 0, ...limits } });
  const token = async (teamName: string, userName: string, role: "admin" | "member" | "reader") =>
    (await issueToken(db, SECRET, { teamName, userName, role })).token;
  const tokens = {
    member: await token("acme", "ann", "member"),
    member2: await token("acme", "bob", "member"),
    reader: await token("acme", "rita", "reader"),
    admin: await token("acme", "ada", "admin"),
    otherTeam: await token("other", "olga", "member"),
  };
  return {
    app,
    db,
    tokens,
    call: (method, url, tok, payload) =>
      app.inject({ method, url, headers: { authorization: `Bearer ${tok}` }, ...(payload !== undefined ? { payload: payload as object } : {}) }),
    close: async () => {
      await app.close();
      await tdb.dispose();
    },
  };
}

/** A fresh operation id (the server accepts 8-128 of [A-Za-z0-9._:-]). */
export function opId(label: string): string {
  return `${label}-${Math.random().toString(36).slice(2, 12)}`;
}
