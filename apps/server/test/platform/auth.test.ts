import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { revokeToken } from "../../src/admin/tokens.js";
import { memberships, tokens } from "../../src/db/schema.js";
import { DATABASE_KINDS } from "../../src/testing.js";
import { badTokens, bearer, claimsOf, craftToken, SECRET, startTestServer, type TestServer } from "./support.js";

describe.each(DATABASE_KINDS)("bearer token checks on %s", (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind, { tokenCacheMs: 100 });
  });
  afterAll(() => server?.close());

  const members = (headers: Record<string, string>) => server.app.inject({ url: "/v1/admin/members", headers });

  it("accepts a token it issued and acts with the stored role", async () => {
    const { token } = await server.token("auth-a", "ann", "admin");
    const res = await members(bearer(token));
    expect(res.statusCode).toBe(200);
    expect(res.json().members).toEqual([{ user: "ann", role: "admin", joinedAt: expect.any(String) }]);
  });

  it("refuses each kind of bad token with 401 and its code", async () => {
    for (const bad of await badTokens(server, "auth-a")) {
      const res = await members(bad.headers);
      expect({ name: bad.name, status: res.statusCode, code: res.json().code }).toEqual({ name: bad.name, status: 401, code: bad.code });
    }
  });

  it("refuses a token whose signed role was raised after issue", async () => {
    const { token } = await server.token("auth-a", "rita", "reader");
    const forged = craftToken({ alg: "HS256", typ: "JWT" }, { ...claimsOf(token), role: "admin" }, SECRET);
    const res = await members(bearer(forged));
    expect(res.statusCode).toBe(401);
    expect(res.json().code).toBe("unauthorized");
  });

  it("refuses a token past its expiry with token_expired", async () => {
    const { token } = await server.token("auth-a", "eve", "admin", 1);
    expect((await members(bearer(token))).statusCode).toBe(200);
    await new Promise((r) => setTimeout(r, 1100));
    const res = await members(bearer(token));
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ code: "token_expired", message: "the token has expired" });
  });

  it("refuses a token revoked by another process once its cached state is older than the cache time", async () => {
    const { token, tokenId } = await server.token("auth-a", "otto", "admin");
    expect((await members(bearer(token))).statusCode).toBe(200);
    await revokeToken(server.tdb.database.db, tokenId); // as the CLI does, behind the app's back
    await new Promise((r) => setTimeout(r, 150));
    const res = await members(bearer(token));
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ code: "token_revoked", message: "the token has been revoked" });
  });

  it("re-reads a token's row on every request when tokenCacheMs is 0", async () => {
    const uncached = await startTestServer(kind, { tokenCacheMs: 0 });
    try {
      const { token, tokenId } = await uncached.token("auth-c", "uma", "admin");
      const get = () => uncached.app.inject({ url: "/v1/admin/members", headers: bearer(token) });
      expect((await get()).statusCode).toBe(200);
      await revokeToken(uncached.tdb.database.db, tokenId); // behind the app's back
      expect((await get()).json()).toEqual({ code: "token_revoked", message: "the token has been revoked" });
    } finally {
      await uncached.close();
    }
  });

  it("refuses a token revoked through this instance's admin API at once", async () => {
    const slow = await startTestServer(kind, { tokenCacheMs: 60_000 });
    try {
      // an app with a long cache: a revocation through its own API must still act at once
      const a = await slow.token("auth-b", "ida", "admin");
      const v = await slow.token("auth-b", "vic", "admin");
      expect((await slow.app.inject({ url: "/v1/admin/members", headers: bearer(v.token) })).statusCode).toBe(200);
      // revoked behind its back, the token is served from the cache for the cache time
      const w = await slow.token("auth-b", "wes", "admin");
      expect((await slow.app.inject({ url: "/v1/admin/members", headers: bearer(w.token) })).statusCode).toBe(200);
      await revokeToken(slow.tdb.database.db, w.tokenId);
      expect((await slow.app.inject({ url: "/v1/admin/members", headers: bearer(w.token) })).statusCode).toBe(200);
      const del = await slow.app.inject({ method: "DELETE", url: `/v1/admin/tokens/${v.tokenId}`, headers: bearer(a.token) });
      expect(del.statusCode).toBe(200);
      expect((await slow.app.inject({ url: "/v1/admin/members", headers: bearer(v.token) })).json().code).toBe("token_revoked");
    } finally {
      await slow.close();
    }
  });

  it("refuses a token whose user was removed from the team with token_revoked", async () => {
    const { token, tokenId } = await server.token("auth-a", "gone", "member");
    const [row] = await server.tdb.database.db.select().from(tokens).where(eq(tokens.id, tokenId));
    await server.tdb.database.db
      .delete(memberships)
      .where(and(eq(memberships.teamId, row!.teamId), eq(memberships.principalId, row!.principalId)));
    await new Promise((r) => setTimeout(r, 150));
    const res = await server.app.inject({ url: "/v1/admin/members", headers: bearer(token) });
    expect(res.json()).toEqual({ code: "token_revoked", message: "the token's user is no longer a member of the team" });
  });
});
