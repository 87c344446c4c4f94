/**
 * Member roles (issue 11, `member list|role`): an admin sets a member's role; a request acts with
 * the lower of its token's role and the member's current one; the team's only admin cannot be
 * demoted; another team's member is not found; bad input is refused with a clear code.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATABASE_KINDS } from "../../src/testing.js";
import { bearer, startTestServer, type TestServer } from "./support.js";

describe.each(DATABASE_KINDS)("member roles on %s", (kind) => {
  let server: TestServer;
  let admin: string;
  let member: { token: string };
  let otherAdmin: string;
  beforeAll(async () => {
    server = await startTestServer(kind, { limits: { rateLimitMax: 0 } });
    admin = (await server.token("acme", "ada", "admin")).token;
    member = await server.token("acme", "max", "member");
    otherAdmin = (await server.token("globex", "gil", "admin")).token;
  });
  afterAll(() => server?.close());

  const setRole = (user: string, role: unknown, token = admin) =>
    server.app.inject({ method: "PUT", url: `/v1/admin/members/${user}`, headers: bearer(token), payload: { role } as object });
  const write = (token: string) =>
    server.app.inject({ method: "PUT", url: "/v1/namespaces/roles", headers: bearer(token) });

  it("lowers a member to reader: their member token can no longer write, until raised again", async () => {
    expect((await write(member.token)).statusCode).toBeLessThan(300);
    const res = await setRole("max", "reader");
    expect([res.statusCode, res.json()]).toEqual([200, { user: "max", role: "reader", previousRole: "member" }]);
    expect((await write(member.token)).json().code).toBe("forbidden");
    expect((await setRole("max", "member")).json()).toEqual({ user: "max", role: "member", previousRole: "reader" });
    expect((await write(member.token)).statusCode).toBeLessThan(300);
  });

  it("does not raise an older token beyond its own role when the member is made admin", async () => {
    expect((await setRole("max", "admin")).json()).toEqual({ user: "max", role: "admin", previousRole: "member" });
    const res = await server.app.inject({ url: "/v1/admin/members", headers: bearer(member.token) });
    expect(res.json().code).toBe("forbidden");
    const members = (await server.app.inject({ url: "/v1/admin/members", headers: bearer(admin) })).json().members;
    expect(members).toEqual([
      { user: "ada", role: "admin", joinedAt: expect.any(String) },
      { user: "max", role: "admin", joinedAt: expect.any(String) },
    ]);
    await setRole("max", "member");
  });

  it("refuses to demote the team's only admin with 409 last_admin", async () => {
    const res = await setRole("ada", "member");
    expect([res.statusCode, res.json()]).toEqual([409, { code: "last_admin", message: expect.stringContaining("only admin"), details: { user: "ada" } }]);
    expect((await server.app.inject({ url: "/v1/admin/members", headers: bearer(admin) })).statusCode).toBe(200);
  });

  it("answers a user of another team, or no user, as not found, and changes nothing there", async () => {
    for (const user of ["gil", "nobody"]) {
      const res = await setRole(user, "reader");
      expect([res.statusCode, res.json().code]).toEqual([404, "not_found"]);
    }
    expect((await server.app.inject({ url: "/v1/admin/members", headers: bearer(otherAdmin) })).json().members[0].role).toBe("admin");
  });

  it("shows the caller's team", async () => {
    const res = await server.app.inject({ url: "/v1/admin/team", headers: bearer(admin) });
    expect(res.json()).toEqual({ name: "acme", createdAt: expect.any(String), members: 2 });
  });

  it.each([
    ["an unknown role", "owner"],
    ["a role of the wrong type", 1],
    ["no role", undefined],
  ])("refuses %s with 400 invalid_request", async (_name, role) => {
    const res = await setRole("max", role);
    expect([res.statusCode, res.json().code]).toEqual([400, "invalid_request"]);
  });

  it("refuses an invalid user name and an extra body field with 400 invalid_request", async () => {
    expect((await setRole("-x", "reader")).json().code).toBe("invalid_request");
    const extra = await server.app.inject({ method: "PUT", url: "/v1/admin/members/max", headers: bearer(admin), payload: { role: "reader", user: "ada" } });
    expect([extra.statusCode, extra.json().code]).toEqual([400, "invalid_request"]);
  });
});
