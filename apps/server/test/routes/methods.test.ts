/**
 * A known path called with a method none of its routes has: 405 `method_not_allowed` with `Allow`
 * (RFC 9110 §15.5.6); an unknown path stays 404 `not_found`; HEAD of a GET route stays Fastify's
 * (exposeHeadRoutes). Over a real socket (fetch) as well as inject. Routing does not depend on the
 * database kind, so one kind is enough here (the route walk covers every route on both).
 */
import type { AddressInfo } from "node:net";
import { beforeAll, describe, expect, it } from "vitest";
import { useHarness } from "./harness.js";

describe("methods a route does not have (pglite)", () => {
  const h = useHarness("pglite");
  let base: string;

  beforeAll(async () => {
    await h.app.listen({ host: "127.0.0.1", port: 0 });
    base = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
  });

  it("answers a known path with a wrong method as 405 method_not_allowed, Allow listing the path's methods", async () => {
    const cases: [method: string, path: string, allow: string][] = [
      ["PUT", "/v1/namespaces/acme-web/batch", "POST"],
      ["DELETE", "/v1/namespaces/acme-web/stream", "GET, HEAD"],
      ["POST", "/v1/team/whoami", "GET, HEAD"],
      ["PATCH", "/v1/admin/tokens", "GET, HEAD, POST"],
      ["OPTIONS", "/v1/admin/tokens", "GET, HEAD, POST"],
      ["GET", "/v1/admin/tokens/some-token-id", "DELETE"],
    ];
    for (const [method, path, allow] of cases) {
      const res = await fetch(`${base}${path}?x=1`, { method, headers: { authorization: `Bearer ${h.tokens.admin}` } });
      const body = await res.json();
      expect({ method, path, status: res.status, allow: res.headers.get("allow"), body }).toEqual({
        method,
        path,
        status: 405,
        allow,
        body: { code: "method_not_allowed", message: `this path does not accept ${method}; it accepts ${allow}`, details: { allow: allow.split(", ") } },
      });
    }
  });

  it("answers 405 without a token too, and to HEAD of a route without GET with headers only", async () => {
    const anon = await fetch(`${base}/v1/namespaces/acme-web/batch`, { method: "GET" });
    expect([anon.status, anon.headers.get("allow"), ((await anon.json()) as { code: string }).code]).toEqual([405, "POST", "method_not_allowed"]);
    const head = await fetch(`${base}/v1/namespaces/acme-web/batch`, { method: "HEAD" });
    expect([head.status, head.headers.get("allow"), await head.text()]).toEqual([405, "POST", ""]);
  });

  it("keeps 404 not_found, without Allow, for a path no route has with any method", async () => {
    for (const [method, path] of [
      ["GET", "/v1/nope"],
      ["POST", "/v1/namespaces/acme-web/batch/extra"],
      ["HEAD", "/v1/team"],
      ["DELETE", "/"],
    ]) {
      const res = await fetch(`${base}${path}`, { method, headers: { authorization: `Bearer ${h.tokens.admin}` } });
      const body = method === "HEAD" ? null : ((await res.json()) as { code: string });
      expect({ path, status: res.status, allow: res.headers.get("allow"), code: body?.code ?? null }).toEqual({
        path,
        status: 404,
        allow: null,
        code: method === "HEAD" ? null : "not_found",
      });
    }
  });

  it("serves HEAD of a GET route as the GET without a body (Fastify's exposeHeadRoutes)", async () => {
    const headers = { authorization: `Bearer ${h.tokens.reader}` };
    const get = await fetch(`${base}/v1/team/whoami`, { headers });
    const head = await fetch(`${base}/v1/team/whoami`, { method: "HEAD", headers });
    expect([head.status, head.headers.get("content-type"), head.headers.get("allow"), await head.text()]).toEqual([
      get.status,
      get.headers.get("content-type"),
      null,
      "",
    ]);
    expect(get.status).toBe(200);
    // HEAD of a GET route still runs the route's checks: no token, 401.
    expect((await fetch(`${base}/v1/team/whoami`, { method: "HEAD" })).status).toBe(401);
  });
});
