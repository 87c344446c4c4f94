/**
 * try19 F3: a route that takes no body (rotate the fingerprint key, create a namespace, revoke a
 * token) refuses one it does not know with 400 `invalid_request`, changing nothing, as every
 * other route refuses unknown keys; absent, `null` and `{}` are accepted.
 */
import { describe, expect, it } from "vitest";
import { DATABASE_KINDS } from "../../src/testing.js";
import { useHarness } from "./harness.js";

describe.each(DATABASE_KINDS)("routes without a body on %s", (kind) => {
  const h = useHarness(kind);
  const raw = (method: "POST" | "PUT" | "DELETE", url: string, token: string, json: string | undefined) =>
    h.app.inject({ method, url, headers: { authorization: `Bearer ${token}`, ...(json === undefined ? {} : { "content-type": "application/json" }) }, ...(json === undefined ? {} : { payload: json }) });
  const BAD: [string, RegExp][] = [
    ['{"a":1}', /unknown key a/],
    ["[]", /body/],
    ['"x"', /body/],
    ["1", /body/],
  ];
  const GOOD = [undefined, "{}", "null"];

  it("POST /v1/admin/fingerprint-key/rotate: a body with anything in it rotates nothing", async () => {
    const keyId = async () => ((await h.call("GET", "/v1/team/scan-policy", h.tokens.member)).json() as { fingerprintKey: { id: number } }).fingerprintKey.id;
    const before = await keyId();
    for (const [json, message] of BAD) {
      const res = await raw("POST", "/v1/admin/fingerprint-key/rotate", h.tokens.admin, json);
      expect([json, res.statusCode, res.json()]).toEqual([json, 400, expect.objectContaining({ code: "invalid_request", message: expect.stringMatching(message) })]);
    }
    expect(await keyId()).toBe(before);
    for (const [i, json] of GOOD.entries()) {
      const res = await raw("POST", "/v1/admin/fingerprint-key/rotate", h.tokens.admin, json);
      expect([json, res.statusCode, res.json()]).toEqual([json, 200, { fingerprintKeyId: before + i + 1 }]);
    }
  });

  it("PUT /v1/namespaces/:namespace: creates nothing for a body it does not take", async () => {
    for (const [json] of BAD) expect([json, (await raw("PUT", "/v1/namespaces/nobody", h.tokens.member, json)).statusCode]).toEqual([json, 400]);
    expect((await h.call("GET", "/v1/namespaces", h.tokens.member)).json().namespaces).toEqual([]);
    for (const [i, json] of GOOD.entries()) expect([json, (await raw("PUT", "/v1/namespaces/nobody", h.tokens.member, json)).statusCode]).toEqual([json, i === 0 ? 201 : 200]);
  });

  it("DELETE /v1/admin/tokens/:id: revokes nothing for a body it does not take", async () => {
    const issued = (await h.call("POST", "/v1/admin/tokens", h.tokens.admin, { user: "tina", role: "member" })).json() as { tokenId: string };
    for (const [json] of BAD) expect([json, (await raw("DELETE", `/v1/admin/tokens/${issued.tokenId}`, h.tokens.admin, json)).statusCode]).toEqual([json, 400]);
    const listed = (await h.call("GET", "/v1/admin/tokens", h.tokens.admin)).json() as { tokens: { tokenId: string; revokedAt: string | null }[] };
    expect(listed.tokens.find((t) => t.tokenId === issued.tokenId)?.revokedAt).toBeNull();
    expect((await raw("DELETE", `/v1/admin/tokens/${issued.tokenId}`, h.tokens.admin, "{}")).statusCode).toBe(200);
  });
});
