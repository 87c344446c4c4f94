/**
 * A server on an empty migrated database of one kind (from the test file's pool, `takeTestDatabase`),
 * with tokens for two teams, and small helpers to call the namespace routes through `inject`. Used
 * by the route tests; closed by `close()`, which gives the database back to the pool.
 */
import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, expect } from "vitest";
import type { OperationResult } from "@teammem/protocol";
import { buildApp } from "../../src/app.js";
import { issueToken } from "../../src/admin/tokens.js";
import type { Db } from "../../src/db/database.js";
import type { Limits } from "../../src/limits.js";
import { renameStoredEntry, type DatabaseKind, type TestDatabase } from "../../src/testing.js";
import { takeTestDatabase } from "../support/database.js";

const SECRET = "test-jwt-secret-".repeat(3);

export interface Harness {
  app: FastifyInstance;
  db: Db;
  /** Bearer tokens: team "acme" member/reader/admin, team "other" member. */
  tokens: { member: string; member2: string; reader: string; admin: string; otherTeam: string };
  call(method: "GET" | "PUT" | "POST" | "DELETE", url: string, token: string, payload?: unknown): Promise<LightMyRequestResponse>;
  /**
   * POSTs `operations` to `/v1/namespaces/<ns>/batch` as `token` (default: the member's), with
   * `clientId` when given; expects HTTP 200 (fails the test otherwise, quoting the body) and
   * returns the per-operation results in order.
   */
  batch(ns: string, operations: unknown[], options?: { token?: string; clientId?: string }): Promise<OperationResult[]>;
  /** `batch` of the one operation `op` as `token` (default: the member's); its result. */
  one(ns: string, op: Record<string, unknown>, token?: string): Promise<OperationResult>;
  /**
   * Stores an entry under `path` as a server from before a newer path rule did (a name the rule now
   * refuses): writes `legacy.md` (version 1, content "old\n") in `ns` as the member, then renames it
   * in the tables (`renameStoredEntry`).
   */
  storeLegacy(ns: string, path: string): Promise<void>;
  close(): Promise<void>;
}

export async function createHarness(kind: DatabaseKind, limits: Partial<Limits> = {}): Promise<Harness> {
  const tdb: TestDatabase = await takeTestDatabase(kind);
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
  const call: Harness["call"] = (method, url, tok, payload) =>
    app.inject({ method, url, headers: { authorization: `Bearer ${tok}` }, ...(payload !== undefined ? { payload: payload as object } : {}) });
  const batch: Harness["batch"] = async (ns, operations, { token = tokens.member, clientId } = {}) => {
    const res = await call("POST", `/v1/namespaces/${ns}/batch`, token, { ...(clientId === undefined ? {} : { clientId }), operations });
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as { results: OperationResult[] }).results;
  };
  const one: Harness["one"] = async (ns, op, token) => (await batch(ns, [op], { token }))[0]!;
  const storeLegacy: Harness["storeLegacy"] = async (ns, path) => {
    expect(await one(ns, { opId: opId("legacy"), path: "legacy.md", baseVersion: 0, content: "old\n" })).toMatchObject({ status: "applied", version: 1 });
    await renameStoredEntry(tdb.database, "legacy.md", path, ns);
  };
  return {
    app,
    db,
    tokens,
    call,
    batch,
    one,
    storeLegacy,
    close: async () => {
      await app.close();
      await tdb.dispose();
    },
  };
}

/**
 * Registers, in the calling describe block, a beforeAll that creates a harness on `kind` (with
 * `limits`) and an afterAll that closes it. Returns the harness object at once; its fields are
 * filled in by the beforeAll, so use it only inside hooks and tests.
 */
export function useHarness(kind: DatabaseKind, limits: Partial<Limits> = {}): Harness {
  const h = {} as Harness;
  beforeAll(async () => {
    Object.assign(h, await createHarness(kind, limits));
  });
  afterAll(async () => {
    await h.close?.();
  });
  return h;
}

/** A fresh operation id (the server accepts 8-128 of [A-Za-z0-9._:-]). */
export function opId(label: string): string {
  return `${label}-${Math.random().toString(36).slice(2, 12)}`;
}
