/**
 * Walks every route of the built app (read from `printRoutes`, so a new route cannot be missed)
 * with every kind of wrong token, wrong role and another team's token, and with hostile values in
 * every field the OpenAPI document describes (hostile-values.ts), on both database kinds.
 * A route without a sample request below fails the walk until one is added.
 */
import { randomUUID } from "node:crypto";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ERRORS, type ErrorCode } from "@teammem/protocol";
import { DATABASE_KINDS } from "../../src/testing.js";
import type { Role } from "../../src/auth/auth-context.js";
import { CANARY, hostileRequests, type OpenApiDoc } from "./hostile-values.js";
import { badTokens, bearer, startTestServer, type TestServer } from "./support.js";

type Method = "GET" | "POST" | "PUT" | "DELETE";
/** How a token of another team is answered: `not_found`, or acting on that team's own objects only. */
type OtherTeam = "not_found" | "own";
interface Sample {
  url: string;
  /** The body; given the request's headers (to fit the caller's team, e.g. its fingerprint key). */
  payload?: (headers: Record<string, string>) => unknown;
  role: Role;
  otherTeam: OtherTeam;
  /** The status of a valid request when not 2xx (the stream route answers a plain GET with 426). */
  okStatus?: number;
}

/** Routes without a token: docs, probes, metrics and the admin console's static files (its data comes from /v1/admin). */
const PUBLIC = /^\/(docs|healthz|readyz|metrics|admin)(\/|$)/;
const RANK: Record<Role, number> = { reader: 0, member: 1, admin: 2 };

/** Every "METHOD /full/path" of `printRoutes({ commonPrefix: false })`, HEAD left out (it mirrors GET). */
function routesOf(tree: string): string[] {
  const stack: string[] = [];
  const out: string[] = [];
  for (const line of tree.split("\n")) {
    const m = /^([│ ]*)(?:├── |└── )(\S+)(?: \(([^)]*)\))?$/.exec(line);
    if (!m) continue;
    const depth = m[1]!.length / 4;
    stack.length = depth;
    stack.push(m[2]!);
    const path = stack.join("");
    for (const method of (m[3] ?? "").split(", ").filter((x) => x && x !== "HEAD")) out.push(`${method} ${path}`);
  }
  return out;
}

describe.each(DATABASE_KINDS)("route walk on %s", (kind) => {
  let server: TestServer;
  const tokens = {} as Record<"admin" | "member" | "reader" | "otherAdmin", string>;
  let samples: Record<string, Sample>;
  let routes: string[];
  /** Every line the server logged (info and above), for the echo check. */
  const logLines: string[] = [];

  const send = async (method: Method, sample: Sample, headers: Record<string, string>) =>
    server.app.inject({
      method,
      url: sample.url,
      headers,
      ...(sample.payload ? { payload: (await sample.payload(headers)) as object } : {}),
    });
  const keyParts = (key: string) => key.split(" ") as [Method, string];
  const protectedRoutes = () => routes.filter((r) => !PUBLIC.test(keyParts(r)[1]));

  beforeAll(async () => {
    const logStream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logLines.push(chunk.toString("utf8"));
        done();
      },
    });
    server = await startTestServer(kind, { limits: { rateLimitMax: 0 }, logger: { level: "info", stream: logStream } });
    await server.app.ready();
    routes = routesOf(server.app.printRoutes({ commonPrefix: false }));
    tokens.admin = (await server.token("walk-a", "wa-admin", "admin")).token;
    tokens.member = (await server.token("walk-a", "wa-member", "member")).token;
    tokens.reader = (await server.token("walk-a", "wa-reader", "reader")).token;
    tokens.otherAdmin = (await server.token("walk-b", "wb-admin", "admin")).token;
    const spare = await server.token("walk-a", "wa-spare", "reader");

    // Team A's data: one entry and one open conflict.
    const batch = (operations: unknown[]) =>
      server.app.inject({ method: "POST", url: "/v1/namespaces/walk-ns/batch", headers: bearer(tokens.member), payload: { operations } });
    const op = (path: string, baseVersion: number, content: string) => ({ opId: randomUUID(), path, baseVersion, content });
    expect((await batch([op("team/a.md", 0, "alpha\n"), op("team/c.md", 0, "line\n")])).statusCode).toBe(200);
    await batch([op("team/c.md", 1, "head line\n")]);
    const conflict = (await batch([op("team/c.md", 1, "my line\n")])).json().results[0];
    expect(conflict.status).toBe("conflict");

    const ns = "/v1/namespaces/walk-ns";
    const auditId = (await server.app.inject({ url: "/v1/admin/audit-events?limit=1", headers: bearer(tokens.admin) })).json().events[0].id;
    const fresh = () => `team/walk-${randomUUID().slice(0, 8)}.md`;
    // Bypass requests: made with the caller's team's current key (the walk rotates it).
    const fingerprint = () => randomUUID().replaceAll("-", "");
    const bypassRequest = async (headers: Record<string, string>) => {
      const policy = await server.app.inject({ url: "/v1/team/scan-policy", headers });
      const fingerprintKeyId = policy.statusCode === 200 ? (policy.json().fingerprintKey.id as number) : 1;
      return { namespace: "walk-ns", path: "team/held.md", ruleId: "github-pat", line: 1, fingerprint: fingerprint(), fingerprintKeyId, reason: "test_value" };
    };
    const newBypass = async () => {
      const res = await server.app.inject({ method: "POST", url: "/v1/team/bypasses", headers: bearer(tokens.member), payload: await bypassRequest(bearer(tokens.member)) });
      expect(res.statusCode).toBe(201);
      return res.json().bypass.id as string;
    };
    const [toApprove, toDeny, toRevoke] = [await newBypass(), await newBypass(), await newBypass()];
    expect((await server.app.inject({ method: "POST", url: `/v1/admin/bypasses/${toRevoke}/approve`, headers: bearer(tokens.admin) })).statusCode).toBe(200);
    samples = {
      "GET /v1/namespaces": { url: "/v1/namespaces", role: "reader", otherTeam: "own" },
      "GET /v1/namespaces/": { url: "/v1/namespaces/", role: "reader", otherTeam: "own" },
      "PUT /v1/namespaces/:namespace": { url: ns, role: "member", otherTeam: "own" },
      "POST /v1/namespaces/:namespace/block-reports": {
        url: `${ns}/block-reports`,
        role: "member",
        otherTeam: "own",
        payload: () => ({ path: "team/x.md", sha256: "0".repeat(64), findings: [{ ruleId: "github-pat", label: "GitHub token", line: 1, column: 1 }] }),
      },
      "POST /v1/namespaces/:namespace/batch": {
        url: `${ns}/batch`,
        role: "member",
        otherTeam: "own",
        payload: () => ({ operations: [{ opId: randomUUID(), path: fresh(), baseVersion: 0, content: "walk\n" }] }),
      },
      "PUT /v1/namespaces/:namespace/entry": {
        get url() {
          return `${ns}/entry?path=${encodeURIComponent(fresh())}`;
        },
        role: "member",
        otherTeam: "own",
        payload: () => ({ baseVersion: 0, content: "walk\n" }),
      },
      "POST /v1/namespaces/:namespace/restore": {
        url: `${ns}/restore`,
        role: "member",
        otherTeam: "not_found",
        payload: () => ({ opId: randomUUID(), path: "team/a.md", version: 1 }),
      },
      "POST /v1/namespaces/:namespace/conflicts/:id/resolve": {
        url: `${ns}/conflicts/${conflict.conflictId}/resolve`,
        role: "member",
        otherTeam: "not_found",
        payload: () => ({ opId: randomUUID(), baseVersion: 2, content: "resolved line\n" }),
      },
      "GET /v1/namespaces/:namespace/conflicts": { url: `${ns}/conflicts`, role: "reader", otherTeam: "not_found" },
      "GET /v1/namespaces/:namespace/changes": { url: `${ns}/changes?since=0`, role: "reader", otherTeam: "not_found" },
      "GET /v1/namespaces/:namespace/entry": { url: `${ns}/entry?path=team/a.md`, role: "reader", otherTeam: "not_found" },
      "GET /v1/namespaces/:namespace/history": { url: `${ns}/history?path=team/a.md`, role: "reader", otherTeam: "not_found" },
      "GET /v1/namespaces/:namespace/version": { url: `${ns}/version?path=team/a.md&version=1`, role: "reader", otherTeam: "not_found" },
      "GET /v1/namespaces/:namespace/heads": { url: `${ns}/heads`, role: "reader", otherTeam: "not_found" },
      "POST /v1/namespaces/:namespace/entries/read": {
        url: `${ns}/entries/read`,
        role: "reader",
        otherTeam: "not_found",
        payload: () => ({ paths: ["team/a.md"] }),
      },
      "POST /v1/namespaces/:namespace/versions/find": {
        url: `${ns}/versions/find`,
        role: "reader",
        otherTeam: "not_found",
        payload: () => ({ paths: [{ path: "team/a.md", candidates: ["0123456789abcdef"] }] }),
      },
      // A WebSocket route: a plain GET passes every check and gets 426 (test/live/stream.test.ts upgrades).
      "GET /v1/namespaces/:namespace/stream": { url: `${ns}/stream`, role: "reader", otherTeam: "not_found", okStatus: 426 },
      "GET /v1/namespaces/:namespace/diff": { url: `${ns}/diff?path=team/a.md&from=0&to=1`, role: "reader", otherTeam: "not_found" },
      "GET /v1/server": { url: "/v1/server", role: "reader", otherTeam: "own" },
      "GET /v1/server/": { url: "/v1/server/", role: "reader", otherTeam: "own" },
      "GET /v1/admin/tokens": { url: "/v1/admin/tokens", role: "admin", otherTeam: "own" },
      "POST /v1/admin/tokens": { url: "/v1/admin/tokens", role: "admin", otherTeam: "own", payload: () => ({ user: "walk-new", role: "reader" }) },
      "DELETE /v1/admin/tokens/:tokenId": { url: `/v1/admin/tokens/${spare.tokenId}`, role: "admin", otherTeam: "not_found" },
      "GET /v1/admin/members": { url: "/v1/admin/members", role: "admin", otherTeam: "own" },
      "GET /v1/admin/audit-events": { url: "/v1/admin/audit-events", role: "admin", otherTeam: "own" },
      "GET /v1/admin/audit-events/summary": { url: "/v1/admin/audit-events/summary?kind=token_issued", role: "admin", otherTeam: "own" },
      "GET /v1/admin/audit-events/export": { url: "/v1/admin/audit-events/export?format=csv", role: "admin", otherTeam: "own" },
      "GET /v1/admin/audit-events/:id": { url: `/v1/admin/audit-events/${auditId}`, role: "admin", otherTeam: "not_found" },
      "GET /v1/admin/team": { url: "/v1/admin/team", role: "admin", otherTeam: "own" },
      "PUT /v1/admin/members/:user": { url: "/v1/admin/members/wa-spare", role: "admin", otherTeam: "not_found", payload: () => ({ role: "reader" }) },
      "POST /v1/admin/fingerprint-key/rotate": { url: "/v1/admin/fingerprint-key/rotate", role: "admin", otherTeam: "own" },
      "POST /v1/admin/namespaces/:namespace/purge": {
        url: `${ns.replace("/v1/namespaces", "/v1/admin/namespaces")}/purge`,
        role: "admin",
        otherTeam: "not_found",
        payload: () => ({ path: "team/c.md", version: 1, reason: "walk" }),
      },
      "GET /v1/admin/policy": { url: "/v1/admin/policy", role: "admin", otherTeam: "own" },
      "PUT /v1/admin/policy": { url: "/v1/admin/policy", role: "admin", otherTeam: "own", payload: () => ({ bypassPolicy: "approval" }) },
      "GET /v1/admin/bypasses": { url: "/v1/admin/bypasses?status=all", role: "admin", otherTeam: "own" },
      "GET /v1/admin/bypasses/:id": { url: `/v1/admin/bypasses/${toApprove}`, role: "admin", otherTeam: "not_found" },
      "POST /v1/admin/bypasses/:id/approve": { url: `/v1/admin/bypasses/${toApprove}/approve`, role: "admin", otherTeam: "not_found" },
      "POST /v1/admin/bypasses/:id/deny": { url: `/v1/admin/bypasses/${toDeny}/deny`, role: "admin", otherTeam: "not_found", payload: () => ({ note: "not a test value" }) },
      "POST /v1/admin/bypasses/:id/revoke": { url: `/v1/admin/bypasses/${toRevoke}/revoke`, role: "admin", otherTeam: "not_found" },
      "POST /v1/team/bypasses": { url: "/v1/team/bypasses", role: "member", otherTeam: "own", payload: bypassRequest },
      "GET /v1/team/bypasses": { url: "/v1/team/bypasses?status=all", role: "member", otherTeam: "own" },
      "GET /v1/team/bypasses/:id": { url: `/v1/team/bypasses/${toApprove}`, role: "member", otherTeam: "not_found" },
      "GET /v1/team/scan-policy": { url: "/v1/team/scan-policy", role: "reader", otherTeam: "own" },
      "GET /v1/team/whoami": { url: "/v1/team/whoami", role: "reader", otherTeam: "own" },
    };
  });
  afterAll(() => server?.close());

  it("has a sample request for every protected route and no sample for a route that is gone", () => {
    expect(protectedRoutes().sort()).toEqual(Object.keys(samples).sort());
  });

  it("answers every route's path with each method it lacks as 405 method_not_allowed, Allow listing exactly its methods", async () => {
    // The expected methods come from printRoutes (HEAD with every GET: exposeHeadRoutes), matched
    // here by a regex per pattern (`:param` may be empty, as in the router); the server's from its
    // onRoute hook and Fastify's router.
    const matcher = (path: string) => new RegExp(`^${path.replace("*", ".*").replace(/:[^/]+/g, "[^/]*")}$`);
    const patterns = routes.map((r) => ({ method: keyParts(r)[0], re: matcher(keyParts(r)[1]) }));
    const methodsAt = (url: string) => patterns.filter((p) => p.re.test(url)).flatMap((p) => (p.method === "GET" ? ["GET", "HEAD"] : [p.method]));
    const sampleUrl = new Map(Object.entries(samples).map(([key, sample]) => [keyParts(key)[1], sample.url.split("?")[0]!]));
    const concrete = (path: string) => sampleUrl.get(path) ?? (path.includes(":") || path.includes("*") ? undefined : path);
    let walked = 0;
    for (const path of new Set(routes.map((r) => keyParts(r)[1]))) {
      const url = concrete(path);
      if (!url) continue; // a public route with a parameter (the console's static files)
      const allow = [...new Set(methodsAt(url))].sort();
      for (const method of (["GET", "POST", "PUT", "DELETE", "PATCH"] as const).filter((m) => !allow.includes(m))) {
        const res = await server.app.inject({ method, url, headers: bearer(tokens.admin) });
        expect({ method, path, status: res.statusCode, allow: res.headers["allow"], code: res.json().code }).toEqual({
          method,
          path,
          status: 405,
          allow: allow.join(", "),
          code: "method_not_allowed",
        });
        walked++;
      }
    }
    expect(walked).toBeGreaterThan(routes.length);
  });

  it("answers every public route without a token", async () => {
    const publicRoutes = routes.filter((r) => PUBLIC.test(keyParts(r)[1]) && !r.includes("*") && !r.includes("/:"));
    expect(publicRoutes).toEqual(expect.arrayContaining(["GET /healthz", "GET /readyz", "GET /metrics", "GET /docs/json"]));
    for (const r of publicRoutes) {
      const res = await server.app.inject({ url: keyParts(r)[1] });
      expect({ r, status: res.statusCode < 400 }).toEqual({ r, status: true });
    }
  });

  it("refuses every protected route with each bad token as 401 with the token's code", async () => {
    const bad = await badTokens(server, "walk-a");
    for (const key of protectedRoutes()) {
      const [method] = keyParts(key);
      for (const b of bad) {
        const res = await send(method, samples[key]!, b.headers);
        expect({ key, token: b.name, status: res.statusCode, code: res.json().code }).toEqual({ key, token: b.name, status: 401, code: b.code });
      }
    }
  });

  it("refuses every route to roles below the one it needs as 403 forbidden", async () => {
    for (const key of protectedRoutes()) {
      const [method] = keyParts(key);
      const sample = samples[key]!;
      for (const role of ["reader", "member"] as const) {
        if (RANK[role] >= RANK[sample.role]) continue;
        const res = await send(method, sample, bearer(tokens[role]));
        expect({ key, role, status: res.statusCode, code: res.json().code }).toEqual({ key, role, status: 403, code: "forbidden" });
      }
    }
  });

  it("serves every route to the team's own token of the needed role (so the samples are valid)", async () => {
    for (const key of protectedRoutes()) {
      const [method] = keyParts(key);
      const sample = samples[key]!;
      const res = await send(method, sample, bearer(tokens[sample.role === "admin" ? "admin" : sample.role]));
      const ok = sample.okStatus ? res.statusCode === sample.okStatus : res.statusCode < 300;
      expect({ key, ok, body: ok ? null : res.json() }).toEqual({ key, ok: true, body: null });
    }
  });

  it("never shows or changes one team's objects to another team's token: 404, or its own objects only", async () => {
    const before = (await server.app.inject({ url: "/v1/namespaces/walk-ns/changes?since=0&limit=1000", headers: bearer(tokens.admin) })).json();
    const members = (await server.app.inject({ url: "/v1/admin/members", headers: bearer(tokens.admin) })).json();
    const tokensBefore = (await server.app.inject({ url: "/v1/admin/tokens", headers: bearer(tokens.admin) })).json();
    // not_found routes first: once team B has written, it has a walk-ns of its own (that is fine)
    const order = protectedRoutes().sort((x, y) => Number(samples[x]!.otherTeam === "own") - Number(samples[y]!.otherTeam === "own"));
    for (const key of order) {
      const [method] = keyParts(key);
      const sample = samples[key]!;
      const res = await send(method, sample, bearer(tokens.otherAdmin));
      if (sample.otherTeam === "not_found") {
        expect({ key, status: res.statusCode, code: res.json().code }).toEqual({ key, status: 404, code: "not_found" });
      } else {
        expect({ key, ok: res.statusCode < 300 }).toEqual({ key, ok: true });
        // team A's users must not show up (walk-new is issued in both teams by the samples)
        for (const m of members.members as { user: string }[]) if (m.user !== "walk-new") expect(res.body, key).not.toContain(`"${m.user}"`);
        expect(res.body, key).not.toContain("alpha");
      }
    }
    const after = (await server.app.inject({ url: "/v1/namespaces/walk-ns/changes?since=0&limit=1000", headers: bearer(tokens.admin) })).json();
    expect(after).toEqual(before);
    expect((await server.app.inject({ url: "/v1/admin/tokens", headers: bearer(tokens.admin) })).json()).toEqual(tokensBefore);
  });

  /**
   * What is wrong with `res`, the answer to a variant with a lone surrogate in `field`, or null:
   * it must be 400 `invalid_utf8` naming the field; in a batch operation, that operation alone
   * `rejected` with `invalid_utf8` naming its field (or, for a field the schema refuses anyway,
   * such as `opId`, a 400 with a code that says not to retry).
   */
  const illFormedProblem = (res: { statusCode: number; body: string }, field: string): string | null => {
    const parsed = (() => {
      try {
        return JSON.parse(res.body) as unknown;
      } catch {
        return {}; // a CSV export, say: not a refusal
      }
    })();
    const body = parsed as { code?: ErrorCode; details?: { field?: string }; results?: { status: string; code?: ErrorCode; details?: { field?: string } }[] };
    if (res.statusCode === 400 && body.code === "invalid_utf8" && body.details?.field === field) return null;
    const inOperation = /^body\/operations\/0(?:\/(.+))?$/.exec(field);
    if (inOperation) {
      const first = body.results?.[0];
      if (res.statusCode === 200 && first?.status === "rejected" && first.code === "invalid_utf8" && first.details?.field === inOperation[1]) return null;
      if (res.statusCode === 400 && body.code !== undefined && ERRORS[body.code]?.retry === false) return null;
    }
    return `${res.statusCode} ${res.body.slice(0, 200)}`;
  };

  /**
   * The texts of `needles` that `res` quotes where an error is told: anywhere in a 4xx body; in a
   * batch's 200, in a rejected result's message, details and findings (its opId and path say which
   * operation it is, as sent).
   */
  const echoedIn = (res: { statusCode: number; body: string }, needles: readonly string[]): string[] => {
    if (needles.length === 0) return [];
    if (res.statusCode >= 400) return needles.filter((n) => res.body.includes(n));
    if (res.statusCode !== 200 || !res.body.startsWith('{"results"')) return [];
    const results = (JSON.parse(res.body) as { results: { status: string; message?: string; details?: unknown; findings?: unknown }[] }).results;
    const told = JSON.stringify(results.filter((r) => r.status === "rejected").map((r) => [r.message, r.details, r.findings]));
    return needles.filter((n) => told.includes(n));
  };

  it("never answers 5xx to a hostile value in any field of any route (NUL, over-long, wrong type), as its OpenAPI document describes it; refuses every lone surrogate with invalid_utf8 naming its field; never quotes a value or key sent in an error reply or the log (try14 F16)", async () => {
    const doc = (await server.app.inject({ url: "/docs/json" })).json() as OpenApiDoc;
    const failures: string[] = [];
    let sent = 0;
    let illFormedSent = 0;
    let canaryRefused = 0;
    for (const key of protectedRoutes()) {
      const [method, route] = keyParts(key);
      const sample = samples[key]!;
      const headers = bearer(tokens[sample.role]);
      const payload = sample.payload ? await sample.payload(headers) : undefined;
      for (const h of hostileRequests(doc, method, route, { url: sample.url, payload })) {
        let res;
        try {
          // A body that is a JSON string is sent as JSON too (inject would send a string as text/plain).
          const payload = typeof h.payload === "string" ? JSON.stringify(h.payload) : (h.payload as object | undefined);
          const json = typeof h.payload === "string" ? { "content-type": "application/json" } : {};
          res = await server.app.inject({ method, url: h.url, headers: { ...headers, ...json, ...h.headers }, ...(payload !== undefined ? { payload } : {}) });
        } catch (err) {
          failures.push(`${key} ${h.what} → ${(err as Error).message}`);
          continue;
        }
        sent++;
        if (res.statusCode >= 500) failures.push(`${key} ${h.what} → ${res.statusCode} ${res.body.slice(0, 200)}`);
        else if (res.statusCode >= 400 && typeof res.json().code !== "string") failures.push(`${key} ${h.what} → ${res.statusCode} without a code`);
        // a batch answers 200 with per-operation results: an internal error there is a 500 in disguise (and retryable)
        else if (res.body.includes('"internal_error"')) failures.push(`${key} ${h.what} → ${res.statusCode} ${res.body.slice(0, 200)}`);
        const echoed = echoedIn(res, h.echo);
        if (echoed.length > 0) failures.push(`${key} ${h.what} → ${res.statusCode} quotes what was sent: ${res.body.slice(0, 300)}`);
        if (h.echo.includes(CANARY) && res.statusCode >= 400) canaryRefused++;
        if (h.illFormedField !== undefined) {
          illFormedSent++;
          const problem = illFormedProblem(res, h.illFormedField);
          if (problem) failures.push(`${key} ${h.what} (lone surrogate in ${h.illFormedField}) → ${problem}`);
        }
      }
    }
    expect(failures).toEqual([]);
    expect(sent).toBeGreaterThan(1000);
    expect(illFormedSent).toBeGreaterThan(100);
    expect(canaryRefused).toBeGreaterThan(100);
    // The log keeps method, URL (credentials redacted), status: never a body, so never a body's canary.
    expect(logLines.length).toBeGreaterThan(sent);
    // (The URL is logged as sent, credentials redacted: a canary sent in the query is there.)
    const withoutUrl = (line: string) => {
      const entry = JSON.parse(line) as { req?: { url?: string } };
      delete entry.req?.url;
      return JSON.stringify(entry);
    };
    expect(logLines.map(withoutUrl).filter((line) => line.includes(CANARY))).toEqual([]);
  });
});
