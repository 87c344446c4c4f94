/** GET /v1/team/whoami: who a token speaks for and which server answers (issue 13, for teammem doctor). */
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { DATABASE_KINDS } from "../../src/testing.js";
import { useHarness } from "./harness.js";

describe.each(DATABASE_KINDS)("GET /v1/team/whoami on %s", (kind) => {
  const h = useHarness(kind);

  it("names the team, user, role and expiry of the token, and the server's version, for any role", async () => {
    const { version } = JSON.parse(await readFile(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
    for (const [token, user, role] of [
      [h.tokens.member, "ann", "member"],
      [h.tokens.reader, "rita", "reader"],
      [h.tokens.admin, "ada", "admin"],
    ] as const) {
      const res = await h.call("GET", "/v1/team/whoami", token);
      expect([res.statusCode, res.json()]).toEqual([200, { team: "acme", user, role, tokenId: expect.any(String), expiresAt: null, serverVersion: version }]);
    }
    expect(JSON.stringify((await h.call("GET", "/v1/team/whoami", h.tokens.member)).json())).not.toContain(h.tokens.member);
  });

  it("gives the expiry of a token that expires", async () => {
    const issued = await h.call("POST", "/v1/admin/tokens", h.tokens.admin, { user: "eve", role: "member", expiresInDays: 1 });
    const { token } = issued.json() as { token: string };
    const res = (await h.call("GET", "/v1/team/whoami", token)).json();
    expect(res.user).toBe("eve");
    expect(Date.parse(res.expiresAt)).toBeGreaterThan(Date.now());
  });

  it("refuses a missing or bad token with 401", async () => {
    expect((await h.app.inject({ method: "GET", url: "/v1/team/whoami" })).json().code).toBe("unauthorized");
    expect((await h.call("GET", "/v1/team/whoami", "not.a.jwt")).statusCode).toBe(401);
  });
});
