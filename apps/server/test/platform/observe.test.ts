/**
 * Observability (issue 12): /healthz and /readyz (database, migrations, shutdown and the checks other
 * plugins add), /metrics in Prometheus format from a registry per app instance: requests and latency
 * by route, open sockets, batch operations by result and code, audit events by kind, scanner
 * findings by rule, pool usage. Both databases.
 */
import { createHash, randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeGithubPat } from "@teammem/scanner/testing";
import { DATABASE_KINDS } from "../../src/testing.js";
import { bearer, startTestServer, type TestServer } from "./support.js";

/** The value of the sample `name{labels}` in a Prometheus text exposition, or null. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | null {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split("\n")) {
    const m = /^([a-z_:]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = (m[2] ?? "").split(",").filter(Boolean);
    if (want.every((w) => have.includes(w)) && have.length === want.length) return Number(m[3]);
  }
  return null;
}

describe.each(DATABASE_KINDS)("health, readiness and metrics on %s", (kind) => {
  let server: TestServer;
  let member: string;

  beforeAll(async () => {
    server = await startTestServer(kind, { limits: { rateLimitMax: 0 } });
    await server.app.ready();
    member = (await server.token("obs", "olive", "member")).token;
  });
  afterAll(() => server?.close());

  it("answers /healthz and /readyz without a token; ready names every check", async () => {
    expect((await server.app.inject({ url: "/healthz" })).json()).toEqual({ ok: true });
    const ready = await server.app.inject({ url: "/readyz" });
    expect({ status: ready.statusCode, body: ready.json() }).toEqual({
      status: 200,
      body: { ready: true, checks: { database: "ok", migrations: "ok", shutdown: "ok", listen: "ok" } },
    });
  });

  it("counts requests by route pattern, batch operations by result and code, audit events and findings by rule", async () => {
    const before = (await server.app.inject({ url: "/metrics" })).body;
    const batch = (operations: unknown[]) => server.app.inject({ method: "POST", url: "/v1/namespaces/obs%2Fweb/batch", headers: bearer(member), payload: { operations } });
    const op = (path: string, baseVersion: number, content: string) => ({ opId: randomUUID(), path, baseVersion, content });
    await batch([op("team/a.md", 0, "one\n"), op("team/b.md", 0, "b\n")]);
    await batch([op("team/a.md", 1, "two\n")]);
    const results = (await batch([op("team/a.md", 1, "three\n"), op("team/key.md", 0, `token:\n${fakeGithubPat(7)}\n`)])).json().results;
    expect(results.map((r: { status: string; code?: string }) => r.code ?? r.status)).toEqual(["conflict", "secret_detected"]);
    const report = { path: "team/held.md", sha256: createHash("sha256").update("x").digest("hex"), findings: [{ ruleId: "github-pat", label: "GitHub", line: 1, column: 1 }] };
    expect((await server.app.inject({ method: "POST", url: "/v1/namespaces/obs%2Fweb/block-reports", headers: bearer(member), payload: report })).statusCode).toBeLessThan(300);

    const res = await server.app.inject({ url: "/metrics" });
    expect(res.headers["content-type"]).toMatch(/^text\/plain; version=0\.0\.4/);
    const m = res.body;
    expect({
      applied: sample(m, "teammem_operations_total", { result: "applied", code: "" }),
      conflict: sample(m, "teammem_operations_total", { result: "conflict", code: "" }),
      secret: sample(m, "teammem_operations_total", { result: "rejected", code: "secret_detected" }),
      batches: sample(m, "teammem_http_requests_total", { method: "POST", route: "/v1/namespaces/:namespace/batch", status: "200" }),
      batchLatencyCount: sample(m, "teammem_http_request_duration_seconds_count", { method: "POST", route: "/v1/namespaces/:namespace/batch", status: "200" }),
      uploadRejected: sample(m, "teammem_audit_events_total", { kind: "upload_rejected" }),
      clientBlocked: sample(m, "teammem_audit_events_total", { kind: "client_blocked" }),
      conflictRecorded: sample(m, "teammem_audit_events_total", { kind: "conflict_recorded" }),
      serverFindings: sample(m, "teammem_scanner_findings_total", { rule: "github-pat", source: "server" }),
      clientFindings: sample(m, "teammem_scanner_findings_total", { rule: "github-pat", source: "client" }),
    }).toEqual({
      applied: 3,
      conflict: 1,
      secret: 1,
      batches: 3,
      batchLatencyCount: 3,
      uploadRejected: 1,
      clientBlocked: 1,
      conflictRecorded: 1,
      serverFindings: 1,
      clientFindings: 1,
    });
    // Events recorded before this instance's tally started (none here) are never counted twice: a second scrape agrees.
    expect(sample((await server.app.inject({ url: "/metrics" })).body, "teammem_audit_events_total", { kind: "upload_rejected" })).toBe(1);
    expect(before).not.toContain("teammem_operations_total{");
    // No namespace name, path or token in any label.
    expect(m).not.toContain("obs/web");
    expect(m).not.toContain("team/a.md");
    expect(m).not.toContain(member.slice(-20));
    expect(sample(m, "teammem_open_sockets", { kind: "http" })).toBe(0); // inject opens none
    expect(sample(m, "teammem_open_sockets", { kind: "stream" })).toBe(0);
    if (kind === "postgres") {
      expect(sample(m, "teammem_db_pool_max")).toBe(10);
      expect(sample(m, "teammem_db_pool_connections", { state: "total" })).toBeGreaterThan(0);
      expect(sample(m, "teammem_db_pool_connections", { state: "waiting" })).toBe(0);
    } else {
      expect(sample(m, "teammem_db_pool_max")).toBe(null);
    }
    expect(sample(m, "teammem_http_requests_total", { method: "GET", route: "unmatched", status: "404" })).toBe(null);
    await server.app.inject({ url: "/no/such/route" });
    expect(sample((await server.app.inject({ url: "/metrics" })).body, "teammem_http_requests_total", { method: "GET", route: "unmatched", status: "404" })).toBe(1);
  });

  it("keeps one registry per app instance: another app counts only its own requests", async () => {
    const other = await startTestServer(kind, { limits: { rateLimitMax: 0 } });
    try {
      await other.app.inject({ url: "/healthz" });
      const mine = sample((await server.app.inject({ url: "/metrics" })).body, "teammem_http_requests_total", { method: "GET", route: "/healthz", status: "200" });
      const theirs = sample((await other.app.inject({ url: "/metrics" })).body, "teammem_http_requests_total", { method: "GET", route: "/healthz", status: "200" });
      expect({ mine, theirs }).toEqual({ mine: 1, theirs: 1 });
    } finally {
      await other.close();
    }
  });

  it("is not ready while a migration is missing, and says which", async () => {
    const db = server.tdb.database.db;
    const [last] = ((await db.execute(sql`SELECT id, hash, created_at FROM drizzle.__drizzle_migrations ORDER BY created_at DESC LIMIT 1`)) as unknown as { rows: { id: number; hash: string; created_at: string }[] }).rows;
    await db.execute(sql`DELETE FROM drizzle.__drizzle_migrations WHERE id = ${last!.id}`);
    try {
      const res = await server.app.inject({ url: "/readyz" });
      expect({ status: res.statusCode, migrations: res.json().checks.migrations }).toEqual({ status: 503, migrations: expect.stringMatching(/^not applied up to \d{4}_\w+: run teammem-server migrate$/) });
    } finally {
      await db.execute(sql`INSERT INTO drizzle.__drizzle_migrations (id, hash, created_at) VALUES (${last!.id}, ${last!.hash}, ${last!.created_at})`);
    }
    expect((await server.app.inject({ url: "/readyz" })).statusCode).toBe(200);
  });

  it("is not ready on a database without the migrations table, and says so in words, never with the SQL statement", async () => {
    // Before: the public reply carried drizzle's "Failed query: SELECT max(created_at) ... params:".
    const db = server.tdb.database.db;
    await db.execute(sql`ALTER TABLE drizzle.__drizzle_migrations RENAME TO __drizzle_migrations_away`);
    try {
      const res = await server.app.inject({ url: "/readyz" });
      expect({ status: res.statusCode, migrations: res.json().checks.migrations }).toEqual({
        status: 503,
        migrations: "not applied (no migrations table): run teammem-server migrate",
      });
      expect(res.body).not.toMatch(/SELECT|Failed query|params/);
    } finally {
      await db.execute(sql`ALTER TABLE drizzle.__drizzle_migrations_away RENAME TO __drizzle_migrations`);
    }
    expect((await server.app.inject({ url: "/readyz" })).statusCode).toBe(200);
  });

  it("runs the checks other plugins add, failing with their reason", async () => {
    const other = await startTestServer(kind);
    try {
      let up = false;
      other.app.readiness.add("probe", async () => {
        if (!up) throw new Error("probe down");
      });
      expect(() => other.app.readiness.add("probe", async () => undefined)).toThrow("already registered");
      const down = await other.app.inject({ url: "/readyz" });
      expect({ status: down.statusCode, body: down.json() }).toEqual({
        status: 503,
        body: { ready: false, checks: { database: "ok", migrations: "ok", shutdown: "ok", listen: "ok", probe: "probe down" } },
      });
      up = true;
      expect((await other.app.inject({ url: "/readyz" })).statusCode).toBe(200);
    } finally {
      await other.close();
    }
  });
});
