/**
 * The cache of verified token signatures (plugins/auth.ts, fast-jwt's `cache`): a hit skips only
 * the HMAC and the decoding. Expiry, revocation, tampering and team isolation must hold as without it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATABASE_KINDS } from "../../src/testing.js";
import { bearer, claimsOf, craftToken, SECRET, startTestServer, type TestServer } from "./support.js";

describe.each(DATABASE_KINDS)("verified-token cache on %s", (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    // A long row cache, so only the signature cache and the claims decide what the tests see.
    server = await startTestServer(kind, { tokenCacheMs: 60_000 });
  });
  afterAll(() => server?.close());

  const list = (token: string) => server.app.inject({ url: "/v1/namespaces", headers: bearer(token) });
  const write = (token: string, namespace: string, path: string) =>
    server.app.inject({
      method: "POST",
      url: `/v1/namespaces/${namespace}/batch`,
      headers: bearer(token),
      payload: { operations: [{ opId: `op-${namespace}-${path}-${Date.now()}`, path, baseVersion: 0, content: `# ${path}\n` }] },
    });

  it("refuses a token with token_expired once its exp passes, although its signature was verified and cached before", async () => {
    const { token } = await server.token("cache-exp", "ed", "member"); // its row never expires
    const exp = Math.floor(Date.now() / 1000) + 4;
    const shortLived = craftToken({ alg: "HS256", typ: "JWT" }, { ...claimsOf(token), exp }, SECRET);
    expect((await list(shortLived)).statusCode).toBe(200);
    expect((await list(shortLived)).statusCode).toBe(200); // served from the cache
    await new Promise((r) => setTimeout(r, exp * 1000 - Date.now() + 100));
    const res = await list(shortLived);
    expect({ status: res.statusCode, body: res.json() }).toEqual({ status: 401, body: { code: "token_expired", message: "the token has expired" } });
  });

  it("refuses a cached token revoked through the admin API at once with token_revoked", async () => {
    const admin = await server.token("cache-rev", "ada", "admin");
    const { token, tokenId } = await server.token("cache-rev", "rob", "member");
    expect((await list(token)).statusCode).toBe(200);
    expect((await list(token)).statusCode).toBe(200);
    expect((await server.app.inject({ method: "DELETE", url: `/v1/admin/tokens/${tokenId}`, headers: bearer(admin.token) })).statusCode).toBe(200);
    const res = await list(token);
    expect({ status: res.statusCode, body: res.json() }).toEqual({ status: 401, body: { code: "token_revoked", message: "the token has been revoked" } });
  });

  it("refuses a token differing from a cached one in its signature or its claims with unauthorized", async () => {
    const { token } = await server.token("cache-tamper", "tia", "member");
    const other = await server.token("cache-tamper-other", "oz", "member");
    expect((await list(token)).statusCode).toBe(200);
    const [header, , signature] = token.split(".");
    // The first character: all six of its bits are signature bits. (The last one of an HS256
    // signature carries two unused bits, so changing it can decode to the same bytes, which verify.)
    const firstChar = signature!.startsWith("A") ? "Q" : "A";
    const badSignature = `${header}.${token.split(".")[1]}.${firstChar}${signature!.slice(1)}`;
    // The other team's claims under this token's (cached, valid) signature.
    const otherClaims = Buffer.from(JSON.stringify(claimsOf(other.token))).toString("base64url");
    for (const forged of [badSignature, `${header}.${otherClaims}.${signature}`]) {
      const res = await list(forged);
      expect({ status: res.statusCode, code: res.json().code }).toEqual({ status: 401, code: "unauthorized" });
    }
  });

  it("keeps teams apart while both teams' tokens are served from the cache", async () => {
    const a = await server.token("cache-team-a", "amy", "member");
    const b = await server.token("cache-team-b", "ben", "member");
    for (let round = 0; round < 3; round++) {
      expect((await write(a.token, "shared-name", `a${round}.md`)).json().results[0].status).toBe("applied");
      expect((await write(b.token, "shared-name", `b${round}.md`)).json().results[0].status).toBe("applied");
    }
    const entries = async (token: string) =>
      (await server.app.inject({ url: "/v1/namespaces/shared-name/changes?since=0", headers: bearer(token) })).json().changes.map((c: { path: string }) => c.path).sort();
    expect(await entries(a.token)).toEqual(["a0.md", "a1.md", "a2.md"]);
    expect(await entries(b.token)).toEqual(["b0.md", "b1.md", "b2.md"]);
    expect((await list(a.token)).json().namespaces.map((n: { name: string }) => n.name)).toEqual(["shared-name"]);
  });
});
