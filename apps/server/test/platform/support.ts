/**
 * Shared set-up for the platform tests: a real app on an empty migrated database of each kind, tokens issued
 * the way the server issues them, and hand-crafted JWTs for the ways a token can be wrong.
 */
import { createHmac, generateKeyPairSync, sign as rsaSign } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { buildApp, type AppOptions } from "../../src/app.js";
import { issueToken } from "../../src/admin/tokens.js";
import type { Role, TokenClaims } from "../../src/auth/auth-context.js";
import type { DatabaseKind, TestDatabase } from "../../src/testing.js";
import { takeTestDatabase } from "../support/database.js";

export const SECRET = "platform-test-secret-".padEnd(40, "x");

export interface TestServer {
  app: FastifyInstance;
  tdb: TestDatabase;
  /** Issues a real token (creates team and user as needed). */
  token(team: string, user: string, role: Role, expiresInSeconds?: number): Promise<{ token: string; tokenId: string }>;
  close(): Promise<void>;
}

/**
 * Builds the app on an empty migrated database of `kind` (a new one, or one an earlier server of
 * the test file closed: see `takeTestDatabase`); call `close()` after, which gives the database back.
 * Not yet `ready()`.
 */
export async function startTestServer(kind: DatabaseKind, opts: Partial<AppOptions> = {}): Promise<TestServer> {
  const tdb = await takeTestDatabase(kind);
  const app = await buildApp({ db: tdb.database.db, jwtSecret: SECRET, ...opts });
  return {
    app,
    tdb,
    token: (team, user, role, expiresInSeconds) =>
      issueToken(tdb.database.db, SECRET, { teamName: team, userName: user, role, ...(expiresInSeconds ? { expiresInSeconds } : {}) }),
    close: async () => {
      await app.close();
      await tdb.dispose();
    },
  };
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

const b64url = (v: unknown) => Buffer.from(typeof v === "string" ? v : JSON.stringify(v)).toString("base64url");

/** A JWT with any header and claims, HMAC-signed with `secret` using `hash` (sha256/384/512), or unsigned. */
export function craftToken(header: Record<string, unknown>, claims: object, secret: string | null, hash = "sha256"): string {
  const input = `${b64url(header)}.${b64url(claims)}`;
  const sig = secret === null ? "" : createHmac(hash, secret).update(input).digest("base64url");
  return `${input}.${sig}`;
}

/** A JWT signed RS256 with a fresh key pair (a key the server never knew). */
function rs256Token(claims: object): string {
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const input = `${b64url({ alg: "RS256", typ: "JWT" })}.${b64url(claims)}`;
  return `${input}.${rsaSign("sha256", Buffer.from(input), privateKey).toString("base64url")}`;
}

/** The claims inside a compact JWT (no verification). */
export function claimsOf(token: string): TokenClaims & { iat: number; exp?: number } {
  return JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString("utf8"));
}

/** Every way a bearer token can be wrong, built from a valid token of the app's team; value: expected code. */
export async function badTokens(server: TestServer, team: string): Promise<{ name: string; headers: Record<string, string>; code: string }[]> {
  const valid = await server.token(team, "walker", "admin");
  const claims = claimsOf(valid.token);
  const expired = craftToken({ alg: "HS256", typ: "JWT" }, { ...claims, iat: 1_000, exp: 2_000 }, SECRET);
  const revoked = await server.token(team, "walker-revoked", "admin");
  await server.app.inject({ method: "DELETE", url: `/v1/admin/tokens/${revoked.tokenId}`, headers: bearer(valid.token) });
  return [
    { name: "no token", headers: {}, code: "unauthorized" },
    { name: "malformed token", headers: bearer("not.a.jwt"), code: "unauthorized" },
    { name: "not a bearer scheme", headers: { authorization: `Basic ${valid.token}` }, code: "unauthorized" },
    { name: "expired token", headers: bearer(expired), code: "token_expired" },
    { name: "revoked token", headers: bearer(revoked.token), code: "token_revoked" },
    {
      name: "issued in the future (iat beyond the 60 s leeway)",
      headers: bearer(craftToken({ alg: "HS256", typ: "JWT" }, { ...claims, iat: Math.floor(Date.now() / 1000) + 3600 }, SECRET)),
      code: "token_not_yet_valid",
    },
    {
      name: "not valid yet (nbf ahead)",
      headers: bearer(craftToken({ alg: "HS256", typ: "JWT" }, { ...claims, nbf: Math.floor(Date.now() / 1000) + 3600 }, SECRET)),
      code: "token_not_yet_valid",
    },
    { name: "alg none", headers: bearer(craftToken({ alg: "none", typ: "JWT" }, claims, null)), code: "unauthorized" },
    { name: "HS512 with the right key", headers: bearer(craftToken({ alg: "HS512", typ: "JWT" }, claims, SECRET, "sha512")), code: "unauthorized" },
    { name: "RS256 token", headers: bearer(rs256Token(claims)), code: "unauthorized" },
    { name: "wrong key", headers: bearer(craftToken({ alg: "HS256", typ: "JWT" }, claims, "another-secret-".padEnd(40, "y"))), code: "unauthorized" },
    {
      name: "right key, never issued",
      headers: bearer(craftToken({ alg: "HS256", typ: "JWT" }, { ...claims, jti: "00000000-0000-4000-8000-000000000000" }, SECRET)),
      code: "unauthorized",
    },
  ];
}
