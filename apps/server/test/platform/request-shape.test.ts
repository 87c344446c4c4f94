/**
 * try16 F13, F14: a request body's size in items is checked before the route's schema looks at each
 * item (http/json-shape.ts, the batch route's preValidation): 100 000 invalid batch operations in
 * 1.5 MB held the event loop 45 s, 200 000 unknown keys 3-6 s with a 1.7 MB message naming each.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, startTestServer, type TestServer } from "./support.js";

describe("request bodies with many items", () => {
  let server: TestServer;
  let member: string;
  beforeAll(async () => {
    server = await startTestServer("pglite");
    member = (await server.token("shape-team", "bob", "member")).token;
  });
  afterAll(() => server?.close());

  const post = (url: string, body: unknown) => server.app.inject({ method: "POST", url, headers: { ...bearer(member), "content-type": "application/json" }, payload: JSON.stringify(body) });
  const namespaces = async () => (await server.app.inject({ url: "/v1/namespaces", headers: bearer(member) })).json();

  it("refuses a batch of more operations than the limit with 413 batch_too_large before checking any, whatever they hold", async () => {
    const before = await namespaces();
    for (const operations of [Array.from({ length: 2000 }, () => ({ type: "put" })), Array.from({ length: 101 }, (_, i) => ({ nonsense: i }))]) {
      const res = await post("/v1/namespaces/shape-web/batch", { operations });
      expect(res.statusCode).toBe(413);
      expect(res.json()).toEqual({
        code: "batch_too_large",
        message: `a batch may hold at most 100 operations, this one has ${operations.length}`,
        details: { limit: 100, value: operations.length },
      });
    }
    expect(await namespaces()).toEqual(before); // nothing created
  });

  it("answers a batch of more operations than the item limit too with 413 batch_too_large, not 400: one code for every count over the limit (try17 L1)", async () => {
    const before = await namespaces();
    for (const length of [10_001, 20_000]) {
      const res = await post("/v1/namespaces/shape-web/batch", { operations: Array.from({ length }, (_, i) => ({ opId: `op-${i}-xxxx`, path: "a.md", baseVersion: 0, delete: true })) });
      expect([res.statusCode, res.json()]).toEqual([413, { code: "batch_too_large", message: "a batch may hold at most 100 operations, this one has more than 10000", details: { limit: 100 } }]);
    }
    // Another container over the item limit in a batch body is still the shape's refusal.
    const keys = Object.fromEntries(Array.from({ length: 10_001 }, (_, i) => [`k${i}`, i]));
    const res = await post("/v1/namespaces/shape-web/batch", { operations: [{ type: "put", ...keys }] });
    expect([res.statusCode, res.json().code]).toEqual([400, "invalid_request"]);
    expect(await namespaces()).toEqual(before); // nothing created
  });

  it("still checks a batch within the limit item by item (400 invalid_request naming the field)", async () => {
    const res = await post("/v1/namespaces/shape-web/batch", { operations: Array.from({ length: 100 }, () => ({ type: "put" })) });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe("invalid_request");
  });

  it("refuses an array or object of more than 10 000 items with 400 invalid_request before parsing it", async () => {
    const many = { paths: Array.from({ length: 10_001 }, (_, i) => `team/n${i}.md`) };
    const keys = Object.fromEntries(Array.from({ length: 10_001 }, (_, i) => [`k${i}`, i]));
    for (const body of [many, { operations: [{ type: "put", ...keys }] }, { ...keys, operations: [] }]) {
      const res = await post("/v1/namespaces/shape-web/entries/read", body);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ code: "invalid_request", message: "an array or object of the request body holds more than 10000 items" });
    }
    // 10 000 items pass the shape check: the schema answers (at most 200 paths).
    const ok = await post("/v1/namespaces/shape-web/entries/read", { paths: many.paths.slice(0, 10_000) });
    expect(ok.statusCode).toBe(400);
    expect(ok.json().message).not.toMatch(/10000 items/);
  });

  it("names at most 5 unknown keys and counts the rest", async () => {
    const keys = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`k${i}`, i]));
    const res = await post("/v1/namespaces/shape-web/entries/read", { paths: ["team/a.md"], ...keys });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toMatch(/: unknown keys k0, k1, k2, k3, k4 and 295 other unknown keys$/);
  });
});
