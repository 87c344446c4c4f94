import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATABASE_KINDS } from "../../src/testing.js";
import { tokens } from "../../src/db/schema.js";
import { bearer, startTestServer, type TestServer } from "./support.js";

describe.each(DATABASE_KINDS)("revoking a team's last admin token on %s", (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(() => server?.close());
  const revoke = (tokenId: string, token: string, query = "") =>
    server.app.inject({ method: "DELETE", url: `/v1/admin/tokens/${tokenId}${query}`, headers: bearer(token) });

  it("refuses to revoke the last valid admin token with 409 last_admin_token, and revokes it with ?force=true", async () => {
    const a = await server.token("solo", "ada", "admin");
    const b = await server.token("solo", "bea", "admin");
    await server.token("solo", "max", "member");
    expect((await revoke(b.tokenId, a.token)).statusCode).toBe(200);
    const refused = await revoke(a.tokenId, a.token);
    expect([refused.statusCode, refused.json()]).toEqual([409, { code: "last_admin_token", message: expect.stringContaining("force=true"), details: { tokenId: a.tokenId } }]);
    const [row] = await server.tdb.database.db.select({ revokedAt: tokens.revokedAt }).from(tokens).where(eq(tokens.id, a.tokenId));
    expect(row!.revokedAt).toBeNull();
    expect((await revoke(a.tokenId, a.token, "?force=false")).statusCode).toBe(409);
    expect((await revoke(a.tokenId, a.token, "?force=true")).statusCode).toBe(200);
    expect((await server.app.inject({ url: "/v1/admin/members", headers: bearer(a.token) })).json().code).toBe("token_revoked");
  });

  it("does not count expired admin tokens as a way back in", async () => {
    const a = await server.token("solo2", "ada", "admin");
    const old = await server.token("solo2", "old", "admin");
    await server.tdb.database.db.update(tokens).set({ expiresAt: sql`now() - interval '1 day'` }).where(eq(tokens.id, old.tokenId));
    expect((await revoke(a.tokenId, a.token)).json().code).toBe("last_admin_token");
    // revoking a token that is not the last admin one (the expired one) stays possible
    expect((await revoke(old.tokenId, a.token)).statusCode).toBe(200);
  });

  it("refuses an unknown force value as invalid_request", async () => {
    const a = await server.token("solo3", "ada", "admin");
    expect((await revoke(a.tokenId, a.token, "?force=yes")).json().code).toBe("invalid_request");
  });
});
