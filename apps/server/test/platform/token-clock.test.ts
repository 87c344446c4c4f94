/**
 * Tokens from the future (issue 12): an `iat` or `nbf` more than 60 s ahead of the server's clock is
 * refused with 401 token_not_yet_valid; within the leeway (clock skew between servers) it is accepted.
 * (Every route refuses both: badTokens in support.ts feeds the route walk.)
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, claimsOf, craftToken, SECRET, startTestServer, type TestServer } from "./support.js";

describe("token clock checks on pglite", () => {
  let server: TestServer;
  let claims: ReturnType<typeof claimsOf>;
  beforeAll(async () => {
    server = await startTestServer("pglite");
    claims = claimsOf((await server.token("clock", "cleo", "reader")).token);
  });
  afterAll(() => server?.close());

  const whoami = (extra: object) =>
    server.app.inject({ url: "/v1/team/whoami", headers: bearer(craftToken({ alg: "HS256", typ: "JWT" }, { ...claims, ...extra }, SECRET)) });
  const now = () => Math.floor(Date.now() / 1000);

  it("accepts iat and nbf up to 60 s ahead (clock skew)", async () => {
    expect((await whoami({ iat: now() + 30, nbf: now() + 30 })).statusCode).toBe(200);
  });

  it.each([
    ["iat two minutes ahead", { iat: 120 }],
    ["nbf two minutes ahead", { nbf: 120 }],
  ])("refuses a token with %s as 401 token_not_yet_valid", async (_name, ahead) => {
    const extra = Object.fromEntries(Object.entries(ahead).map(([k, v]) => [k, now() + v]));
    const res = await whoami(extra);
    expect({ status: res.statusCode, code: res.json().code }).toEqual({ status: 401, code: "token_not_yet_valid" });
  });

  it("refuses a non-numeric iat or nbf as unauthorized", async () => {
    for (const extra of [{ iat: "soon" }, { nbf: "later" }]) {
      const res = await whoami(extra);
      expect({ status: res.statusCode, code: res.json().code }).toEqual({ status: 401, code: "unauthorized" });
    }
  });
});
