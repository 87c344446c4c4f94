import { describe, expect, it } from "vitest";
import { opId, useHarness } from "./harness.js";

describe("validation messages name the failing field(s), also in union bodies", () => {
  const h = useHarness("pglite");
  const put = (body: unknown) => h.call("PUT", "/v1/namespaces/vm/entry?path=a.md", h.tokens.member, body);
  const message = async (res: Promise<{ statusCode: number; json(): { code: string; message: string } }>) => {
    const r = await res;
    expect([r.statusCode, r.json().code]).toEqual([400, "invalid_request"]);
    return r.json().message;
  };

  it.each([
    [{ baseVersion: "0", content: "hi" }, ["body/baseVersion: ", "expected number"], ["body/content", "body/delete", "body/: "]],
    [{ baseVersion: 0 }, ["body/content: ", " or body/delete: "], ["body/baseVersion", "body/: "]],
    [{ content: 5 }, ["body/baseVersion: ", "body/content: ", "expected string"], ["body/delete", "body/: "]],
    [{ baseVersion: 0, content: "x", extra: true }, ["extra"], ["body/: Invalid input"]],
  ])("PUT /entry %j", async (body, present, absent) => {
    const text = await message(put(body));
    for (const p of present) expect(text).toContain(p);
    for (const a of absent) expect(text).not.toContain(a);
  });

  it("reports the closest branch of a union exactly", async () => {
    expect(await message(put({ baseVersion: "0", content: "hi" }))).toBe("invalid request: body/baseVersion: Invalid input: expected number, received string");
  });

  it("names the fields of an empty conflict resolution", async () => {
    const text = await message(h.call("POST", "/v1/namespaces/vm/conflicts/00000000-0000-4000-8000-000000000000/resolve", h.tokens.member, {}));
    for (const field of ["body/opId", "body/baseVersion", "body/content", "body/delete"]) expect(text).toContain(field);
    expect(text).not.toContain("body/: ");
  });

  it("names an unknown key only when it is a short plain identifier, never quoting anything else sent (try14 F16)", async () => {
    // A token pasted as a key (built at run time), a password-like key, a 25-character word.
    const token = ["ghp", "_", "Xk9", "q".repeat(3), "7Lm2", "Np4R".repeat(7)].join("");
    const keys = [token, "Hunter2_pw", "a".repeat(25)];
    const text = await message(put({ baseVersion: 0, content: "x", ...Object.fromEntries(keys.map((k) => [k, k])) }));
    expect(text).toBe("invalid request: body/: 3 unknown keys");
    expect(await message(put({ baseVersion: 0, content: "x", expiresAt: 1, [token]: 1 }))).toBe("invalid request: body/: unknown key expiresAt and 1 other unknown key");
    expect(await message(put({ baseVersion: 0, content: "x", base_version: 1 }))).toBe("invalid request: body/: unknown key base_version");
    expect(await message(h.call("GET", `/v1/namespaces/vm/changes?since=0&${token}=1`, h.tokens.reader))).toBe("invalid request: querystring/: an unknown key");
    // A batch operation inside a union body, and a lone surrogate in a made-up key: named, not quoted.
    const op = { opId: opId("k"), path: "a.md", baseVersion: 0, content: "x" };
    expect(await message(h.call("POST", "/v1/namespaces/vm/batch", h.tokens.member, { operations: [{ ...op, [token]: 1 }] }))).toBe("invalid request: body/operations/0: an unknown key");
    const surrogate = await h.call("POST", "/v1/namespaces/vm/batch", h.tokens.member, { operations: [op], [`${token}\ud800`]: { x: 1 } });
    expect([surrogate.statusCode, surrogate.json().code, surrogate.json().details]).toEqual([400, "invalid_utf8", { field: "body/(an unknown key)" }]);
    expect(surrogate.body).not.toContain(token.slice(4));
  });

  it("takes query numbers in decimal digits only, with one message per problem (try17 L2: since=1e3 was read as 1000)", async () => {
    for (const bad of ["1e3", "0x10", "1.0", "-1", "+5", "", " 5"])
      expect(await message(h.call("GET", `/v1/namespaces/vm/changes?since=${encodeURIComponent(bad)}`, h.tokens.reader))).toBe("invalid request: querystring/since: expected a whole number in decimal digits");
    expect(await message(h.call("GET", "/v1/namespaces/vm/changes?since=0&limit=5000", h.tokens.reader))).toBe("invalid request: querystring/limit: Too big: expected number to be <=1000");
    expect(await message(h.call("GET", "/v1/namespaces/vm/changes?limit=0", h.tokens.reader))).toBe("invalid request: querystring/limit: Too small: expected number to be >=1");
    expect(await message(h.call("GET", "/v1/namespaces/vm/version?path=a.md&version=1e1", h.tokens.reader))).toMatch(/querystring\/version: expected a whole number in decimal digits$/);
  });

  it("keeps naming fields of non-union bodies and querystrings", async () => {
    expect(await message(h.call("POST", "/v1/namespaces/vm/batch", h.tokens.member, { operations: [{ opId: opId("x"), path: "a", baseVersion: -1, content: "x" }] }))).toContain("body/operations/0");
    expect(await message(h.call("GET", "/v1/namespaces/vm/changes?since=abc", h.tokens.reader))).toContain("querystring/since");
  });
});
