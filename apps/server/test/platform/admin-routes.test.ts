import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATABASE_KINDS } from "../../src/testing.js";
import { bearer, claimsOf, startTestServer, type TestServer } from "./support.js";

describe.each(DATABASE_KINDS)("admin API on %s", (kind) => {
  let server: TestServer;
  let admin: string;
  let member: string;
  let reader: string;
  let otherAdmin: string;
  beforeAll(async () => {
    server = await startTestServer(kind);
    admin = (await server.token("acme", "ada", "admin")).token;
    member = (await server.token("acme", "max", "member")).token;
    reader = (await server.token("acme", "rex", "reader")).token;
    otherAdmin = (await server.token("globex", "gil", "admin")).token;
  });
  afterAll(() => server?.close());

  const call = (method: "GET" | "POST" | "DELETE", url: string, token: string, payload?: unknown) =>
    server.app.inject({ method, url: `/v1/admin${url}`, headers: bearer(token), ...(payload !== undefined ? { payload: payload as object } : {}) });

  it("issues a working token for a new user of the caller's team, never listing its value", async () => {
    const res = await call("POST", "/tokens", admin, { user: "nia", role: "member", expiresInDays: 30 });
    expect(res.statusCode).toBe(201);
    const { token, tokenId } = res.json();
    const claims = claimsOf(token);
    expect(claims).toMatchObject({ name: "nia", teamName: "acme", role: "member", jti: tokenId });
    expect(claims.exp! - claims.iat).toBe(30 * 86_400);
    const list = await call("GET", "/tokens", admin);
    expect(list.statusCode).toBe(200);
    expect(list.json().tokens[0]).toEqual({
      tokenId,
      user: "nia",
      role: "member",
      createdAt: expect.any(String),
      expiresAt: expect.any(String),
      revokedAt: null,
    });
    expect(list.body).not.toContain(token.split(".")[2]!);
    expect(list.json().tokens.map((t: { user: string }) => t.user).sort()).toEqual(["ada", "max", "nia", "rex"]);
  });

  it("revokes a token of the team so it stops working, and keeps the first revocation time", async () => {
    const { token, tokenId } = (await call("POST", "/tokens", admin, { user: "tmp", role: "reader" })).json();
    const first = await call("DELETE", `/tokens/${tokenId}`, admin);
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({ tokenId, revokedAt: expect.any(String) });
    expect((await call("GET", "/members", token)).json().code).toBe("token_revoked");
    const again = await call("DELETE", `/tokens/${tokenId}`, admin);
    expect(again.json()).toEqual(first.json());
  });

  it("answers another team's token id as not found and leaves it working", async () => {
    const theirs = (await call("POST", "/tokens", otherAdmin, { user: "gus", role: "member" })).json();
    const res = await call("DELETE", `/tokens/${theirs.tokenId}`, admin);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ code: "not_found", message: "no such token in this team" });
    expect((await call("GET", "/tokens", otherAdmin)).json().tokens.find((t: { tokenId: string }) => t.tokenId === theirs.tokenId).revokedAt).toBeNull();
  });

  it("lists only the caller's team's members and tokens", async () => {
    const res = await call("GET", "/members", otherAdmin);
    expect(res.json().members.map((m: { user: string }) => m.user)).toEqual(["gil", "gus"]);
    const tokens = (await call("GET", "/tokens", otherAdmin)).json().tokens;
    expect(tokens.map((t: { user: string }) => t.user).sort()).toEqual(["gil", "gus"]);
  });

  it("records token_issued and token_revoked audit events, newest first, paginated by id", async () => {
    const issued = (await call("POST", "/tokens", admin, { user: "aud", role: "member" })).json();
    await call("DELETE", `/tokens/${issued.tokenId}`, admin);
    const page1 = (await call("GET", "/audit-events?limit=2", admin)).json();
    const tokenEvent = (kind: string) => ({
      ...Object.fromEntries(Object.keys(page1.events[0]).map((k) => [k, null])),
      id: expect.any(Number),
      kind,
      createdAt: expect.any(String),
      actor: "ada",
      tokenId: issued.tokenId,
      targetUser: "aud",
      role: "member",
    });
    expect(page1.events).toEqual([tokenEvent("token_revoked"), tokenEvent("token_issued")]);
    expect(page1.nextBefore).toBe(page1.events[1].id);
    const page2 = (await call("GET", `/audit-events?limit=500&before=${page1.nextBefore}`, admin)).json();
    expect(page2.events.every((e: { id: number }) => e.id < page1.nextBefore)).toBe(true);
    expect(page2.nextBefore).toBeNull();
    expect((await call("GET", "/audit-events", otherAdmin)).json().events.every((e: { tokenId: string }) => e.tokenId !== issued.tokenId)).toBe(true);
  });

  it.each([
    ["GET", "/tokens"],
    ["POST", "/tokens"],
    ["DELETE", "/tokens/00000000-0000-4000-8000-000000000000"],
    ["GET", "/members"],
    ["GET", "/audit-events"],
  ] as const)("refuses %s %s to member and reader tokens with 403 forbidden", async (method, url) => {
    for (const token of [member, reader]) {
      const res = await call(method, url, token, method === "POST" ? { user: "zed", role: "admin" } : undefined);
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ code: "forbidden", message: "this action needs the admin role" });
    }
  });

  it.each([
    ["missing user", { role: "member" }],
    ["missing role", { user: "bob" }],
    ["unknown role", { user: "bob", role: "owner" }],
    ["user of the wrong type", { user: 12, role: "member" }],
    ["user with a slash", { user: "a/b", role: "member" }],
    ["empty user", { user: "", role: "member" }],
    ["unknown field", { user: "bob", role: "member", team: "globex" }],
    ["zero days", { user: "bob", role: "member", expiresInDays: 0 }],
    ["fractional days", { user: "bob", role: "member", expiresInDays: 1.5 }],
    ["days as a string", { user: "bob", role: "member", expiresInDays: "7" }],
    ["an array body", [{ user: "bob", role: "member" }]],
  ])("refuses POST /tokens with %s as 400 invalid_request", async (_name, body) => {
    const res = await call("POST", "/tokens", admin, body);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: "invalid_request", message: expect.stringMatching(/^invalid request: body/) });
  });

  it("refuses POST /tokens without a body as 400 invalid_request", async () => {
    const res = await server.app.inject({ method: "POST", url: "/v1/admin/tokens", headers: bearer(admin) });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe("invalid_request");
  });

  it.each(["not-a-uuid", "1", "00000000-0000-4000-8000-00000000000g"])("refuses DELETE /tokens/%s as 400 invalid_request", async (id) => {
    const res = await call("DELETE", `/tokens/${id}`, admin);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toMatch(/^invalid request: params\/tokenId/);
  });

  it("answers an unknown token id as 404 not_found", async () => {
    const res = await call("DELETE", "/tokens/00000000-0000-4000-8000-000000000000", admin);
    expect(res.statusCode).toBe(404);
  });

  it.each(["limit=0", "limit=501", "limit=abc", "before=-1", "before=1.5", "sort=asc"])("refuses GET /audit-events?%s as 400 invalid_request", async (q) => {
    const res = await call("GET", `/audit-events?${q}`, admin);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toMatch(/^invalid request: querystring/);
  });
});
