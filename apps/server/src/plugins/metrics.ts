import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import pg from "pg";
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import { AuditTally } from "../audit/audit-tally.js";

export interface MetricsOptions {
  /** Also export the process's own metrics (CPU, memory, event loop lag, GC; prom-client's defaults). Off in tests: they start timers per registry. */
  processMetrics: boolean;
}

/** What route code reports; everything else is observed by hooks. */
export interface Metrics {
  /** The registry behind `GET /metrics` (one per app instance). */
  readonly registry: Registry;
  /** One write operation's result: `applied`, `merged`, `conflict`, or `rejected` with its error code. */
  operation(result: "applied" | "merged" | "conflict" | "rejected", code?: string): void;
}

/** Seconds; from 2 ms to 10 s. */
const LATENCY_BUCKETS = [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The `pg` pool behind the app's database, or null (PGlite: one in-process connection). */
function poolOf(app: FastifyInstance): pg.Pool | null {
  const client = (app.db as { $client?: unknown }).$client;
  return client instanceof pg.Pool ? client : null;
}

/**
 * `GET /metrics`: Prometheus text format (prom-client), no token, not rate-limited, not in the
 * OpenAPI document (serve it only where your scraper can reach it: a private port or a proxy rule).
 * Every metric lives in a registry of this app instance (no global state):
 * - `teammem_http_requests_total{method,route,status}` and `teammem_http_request_duration_seconds`
 *   (histogram, same labels; `route` is the route's pattern such as `/v1/namespaces/:namespace/batch`,
 *   or `unmatched`, so a label never holds a namespace, path or token);
 * - `teammem_open_sockets{kind="http"|"stream"}`: open client connections, and of those the change
 *   streams (WebSocket) of plugins/live.ts;
 * - `teammem_operations_total{result,code}`: batch write operations by result (`applied`, `merged`,
 *   `conflict`, `rejected` with its error code);
 * - `teammem_audit_events_total{kind}` and `teammem_scanner_findings_total{rule,source}`: audit
 *   events recorded since this instance started, by any process on the database, and the findings
 *   they carry (`source="server"`: the server's re-scan refused an upload, `upload_rejected`;
 *   `source="client"`: a client held a file back, `client_blocked`), read forward from the audit
 *   table at each scrape (see audit/audit-tally.ts);
 * - `teammem_db_pool_connections{state="total|idle|waiting"}` and `teammem_db_pool_max` (PostgreSQL);
 * - with `processMetrics`, prom-client's process metrics (`process_*`, `nodejs_*`).
 */
async function metrics(app: FastifyInstance, opts: MetricsOptions): Promise<void> {
  const registry = new Registry();
  if (opts.processMetrics) collectDefaultMetrics({ register: registry });

  const requests = new Counter({ name: "teammem_http_requests_total", help: "HTTP requests answered, by route pattern and status", labelNames: ["method", "route", "status"], registers: [registry] });
  const latency = new Histogram({
    name: "teammem_http_request_duration_seconds",
    help: "Time from a request's arrival to its reply, by route pattern and status",
    labelNames: ["method", "route", "status"],
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  new Gauge({
    name: "teammem_open_sockets",
    help: "Open client connections",
    labelNames: ["kind"],
    registers: [registry],
    async collect() {
      const open = await new Promise<number>((resolve) => app.server.getConnections((err, n) => resolve(err ? 0 : n)));
      this.set({ kind: "http" }, open);
      if (app.hasDecorator("changeHub")) this.set({ kind: "stream" }, app.changeHub.connectionCount);
    },
  });
  const operations = new Counter({ name: "teammem_operations_total", help: "Batch write operations by result; rejected ones by error code", labelNames: ["result", "code"], registers: [registry] });
  const auditCount = new Counter({ name: "teammem_audit_events_total", help: "Audit events recorded since this instance started (any process on the database), by kind", labelNames: ["kind"], registers: [registry] });
  const findings = new Counter({
    name: "teammem_scanner_findings_total",
    help: "Credential findings in refused uploads (source=server) and clients' block reports (source=client) since this instance started, by rule",
    labelNames: ["rule", "source"],
    registers: [registry],
  });
  const pool = poolOf(app);
  if (pool) {
    new Gauge({
      name: "teammem_db_pool_connections",
      help: "PostgreSQL pool connections: total open, idle, and requests waiting for one",
      labelNames: ["state"],
      registers: [registry],
      collect() {
        this.set({ state: "total" }, pool.totalCount);
        this.set({ state: "idle" }, pool.idleCount);
        this.set({ state: "waiting" }, pool.waitingCount);
      },
    });
    new Gauge({ name: "teammem_db_pool_max", help: "Most connections the PostgreSQL pool opens", registers: [registry] }).set(pool.options.max ?? 10);
  }

  const tally = new AuditTally(app.db, ({ kind, ruleIds }) => {
    auditCount.inc({ kind });
    const source = kind === "upload_rejected" ? "server" : kind === "client_blocked" ? "client" : null;
    if (source) for (const rule of ruleIds) findings.inc({ rule, source });
  });
  app.addHook("onReady", () => tally.start());

  app.addHook("onResponse", async (request, reply) => {
    const labels = { method: request.method, route: request.routeOptions.url ?? "unmatched", status: String(reply.statusCode) };
    requests.inc(labels);
    latency.observe(labels, reply.elapsedTime / 1000);
  });

  app.decorate("metrics", {
    registry,
    operation: (result, code) => operations.inc({ result, code: result === "rejected" ? (code ?? "unknown") : "" }),
  } satisfies Metrics);

  app.get("/metrics", { config: { rateLimit: false }, schema: { hide: true } }, async (request, reply) => {
    try {
      await tally.poll();
    } catch (err) {
      // The database being down must not take the metrics with it (they show the outage).
      request.log.warn({ err: { message: (err as Error).message } }, "audit tally could not read the audit table");
    }
    return reply.header("content-type", registry.contentType).send(await registry.metrics());
  });
}

declare module "fastify" {
  interface FastifyInstance {
    metrics: Metrics;
  }
}

export default fp(metrics, { name: "teammem-metrics" });
