import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, startTestServer, type TestServer } from "./support.js";

describe("rate limit per token", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer("pglite", { limits: { rateLimitMax: 3, rateLimitWindowMs: 60_000 } });
  });
  afterAll(() => server?.close());

  it("answers the request over the limit with 429 rate_limited and Retry-After, counting each token apart", async () => {
    const a = (await server.token("rl", "ann", "admin")).token;
    const b = (await server.token("rl", "bob", "admin")).token;
    for (let i = 0; i < 3; i++) expect((await server.app.inject({ url: "/v1/admin/members", headers: bearer(a) })).statusCode).toBe(200);
    const over = await server.app.inject({ url: "/v1/admin/members", headers: bearer(a) });
    expect(over.statusCode).toBe(429);
    expect(Number(over.headers["retry-after"])).toBeGreaterThan(0);
    expect(over.headers["retry-after"]).toBe(String(Math.ceil(over.json().details.retryAfterMs / 1000)));
    expect(over.json()).toEqual({
      code: "rate_limited",
      message: expect.stringMatching(/^too many requests: at most 3 per 60000 ms; retry after/),
      details: { limit: 3, windowMs: 60_000, retryAfterMs: expect.any(Number) },
    });
    expect((await server.app.inject({ url: "/v1/admin/members", headers: bearer(b) })).statusCode).toBe(200);
  });

  it("counts requests without a valid token by address, apart from tokens", async () => {
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await server.app.inject({ url: "/v1/admin/members", headers: bearer("junk") })).statusCode);
    expect(statuses).toEqual([401, 401, 401, 429]);
  });

  it("never limits /healthz, /readyz or /metrics", async () => {
    for (const url of ["/healthz", "/readyz", "/metrics"]) {
      for (let i = 0; i < 5; i++) expect({ url, status: (await server.app.inject({ url })).statusCode }).toEqual({ url, status: 200 });
    }
  });
});

describe("API description", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer("pglite");
  });
  afterAll(() => server?.close());

  it("serves OpenAPI JSON at /docs/json describing the admin routes from their zod schemas", async () => {
    const res = await server.app.inject({ url: "/docs/json" });
    expect(res.statusCode).toBe(200);
    const spec = res.json();
    expect(spec.openapi).toMatch(/^3\./);
    expect(Object.keys(spec.paths)).toEqual(expect.arrayContaining(["/v1/admin/tokens", "/v1/admin/tokens/{tokenId}", "/v1/admin/members", "/v1/admin/audit-events"]));
    const body = spec.paths["/v1/admin/tokens"].post.requestBody.content["application/json"].schema;
    expect(body.required).toEqual(["user", "role"]);
    expect(body.properties.role.enum).toEqual(["admin", "member", "reader"]);
  });

  it("serves the documentation UI at /docs", async () => {
    const res = await server.app.inject({ url: "/docs/" });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toMatch(/text\/html/);
  });
});
