#!/usr/bin/env node
// Server write benchmark (run by `npm run bench:server`, which builds first; imports ../dist).
// Against PostgreSQL (BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres) it
// creates a fresh database teammem_bench_<random>, drops it at the end, and measures at concurrency
// 1, 16 and 64, in the same run:
//   server: one single-entry write per request, POST /v1/namespaces/<ns>/batch through the real
//           HTTP server (127.0.0.1, port 0, fetch with keep-alive); each worker updates its own
//           entry from its last version (fast-forward), ~1 KB of Markdown re-scanned by the server.
//           Two layouts: every worker in its own namespace (many repositories: writers run in
//           parallel), and all workers in one namespace (its writers take the namespace lock in turn);
//   read:   GET /v1/namespaces/<ns>/entry (HTTP + auth + one indexed select), to separate the
//           request overhead from the write transaction;
//   bare:   BEGIN; INSERT one row of the same size; COMMIT on a pg pool of the same size.
// Prints p50/p99 latency (ms), throughput (ops/s) and the p50 ratio (goal: server <= 2x bare).
// Options: --ops N (operations per concurrency level, default 1000), --warmup N (default 100),
//          --pool N (connections for both server and bare, default 10).
import { randomBytes, randomUUID } from "node:crypto";
import os from "node:os";
import { parseArgs } from "node:util";
import pg from "pg";
import { buildApp, issueToken, openDatabase } from "../dist/index.js";

const { values } = parseArgs({ options: { ops: { type: "string" }, warmup: { type: "string" }, pool: { type: "string" } } });
const OPS = Number(values.ops ?? 1000);
const WARMUP = Number(values.warmup ?? 100);
const POOL = Number(values.pool ?? 10);
const LEVELS = [1, 16, 64];
const adminUrl = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
if (!/^postgres(ql)?:\/\/[^/]*(127\.0\.0\.1|localhost|\[::1\])[:/]/.test(adminUrl)) {
  throw new Error(`BENCH_DATABASE_URL must point at localhost: ${adminUrl}`);
}

const withDb = (url, name) => Object.assign(new URL(url), { pathname: `/${name}` }).toString();
async function admin(sql) {
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

const PARAGRAPH = "## Build\n\nRun `npm run build` before `npm test`; the CI uses Node 20 and PostgreSQL 15.\n";
/** ~1 KB of Markdown, different every call. */
const content = (n) => `# Note ${n}\n\n${PARAGRAPH.repeat(12)}\nrevision ${n} ${randomUUID()}\n`;

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/** Runs `op(worker, i)` `total` times over `concurrency` workers; returns latencies (ms) and wall time. */
async function run(concurrency, total, op) {
  const latencies = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, w) => {
      for (;;) {
        const i = next++;
        if (i >= total) return;
        const t0 = performance.now();
        await op(w, i);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const wallMs = performance.now() - started;
  latencies.sort((a, b) => a - b);
  return { p50: pct(latencies, 50), p99: pct(latencies, 99), opsPerSec: (total / wallMs) * 1000 };
}

const name = `teammem_bench_${randomBytes(5).toString("hex")}`;
await admin(`CREATE DATABASE ${name}`);
const url = withDb(adminUrl, name);
const database = await openDatabase({ kind: "postgres", url, poolSize: POOL });
const bare = new pg.Pool({ connectionString: url, max: POOL });
let app;
try {
  await database.migrate();
  await bare.query("CREATE TABLE bench_bare (id bigserial PRIMARY KEY, path text NOT NULL, content text NOT NULL, created_at timestamptz NOT NULL DEFAULT now())");
  const secret = randomBytes(32).toString("base64url");
  const { token } = await issueToken(database.db, secret, { teamName: "bench", userName: "bench", role: "member" });
  app = await buildApp({
    db: database.db,
    jwtSecret: secret,
    fingerprintKey: randomBytes(16).toString("hex"),
    // rate limiting stays on (its cost is part of a request) with a ceiling the run cannot reach
    limits: { rateLimitMax: 1_000_000_000 },
  });
  const base = await app.listen({ host: "127.0.0.1", port: 0 });
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };

  /** Each (level, worker) owns one entry and updates it from its last version. */
  const versions = new Map();
  const serverWrite = (level, shared) => async (w, i) => {
    const ns = shared ? `shared-c${level}` : `own-c${level}-w${w}`;
    const path = `bench/w${w}.md`;
    const key = `${ns}/${path}`;
    const baseVersion = versions.get(key) ?? 0;
    const res = await fetch(`${base}/v1/namespaces/${ns}/batch`, {
      method: "POST",
      headers,
      body: JSON.stringify({ operations: [{ opId: randomUUID(), path, baseVersion, content: content(i) }] }),
    });
    const body = await res.json();
    const r = body.results?.[0];
    if (res.status !== 200 || r.status !== "applied") throw new Error(`write ${path} failed: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
    versions.set(key, r.version);
  };
  const serverRead = (level) => async (w) => {
    const res = await fetch(`${base}/v1/namespaces/own-c${level}-w${w}/entry?path=bench/w${w}.md`, { headers });
    if (res.status !== 200) throw new Error(`read failed: ${res.status}`);
    await res.arrayBuffer();
  };
  const bareInsert = (level) => async (w, i) => {
    const c = await bare.connect();
    try {
      await c.query("BEGIN");
      await c.query("INSERT INTO bench_bare (path, content) VALUES ($1, $2)", [`bench/c${level}/w${w}.md`, content(i)]);
      await c.query("COMMIT");
    } finally {
      c.release();
    }
  };

  const rows = [];
  for (const level of LEVELS) {
    await run(level, WARMUP, serverWrite(level, false));
    await run(level, WARMUP, serverWrite(level, true));
    await run(level, WARMUP, bareInsert(level));
    const s = await run(level, OPS, serverWrite(level, false));
    const one = await run(level, OPS, serverWrite(level, true));
    const r = await run(level, OPS, serverRead(level));
    const b = await run(level, OPS, bareInsert(level));
    rows.push({ level, s, one, r, b });
  }

  const f = (n) => n.toFixed(2);
  const pgVersion = (await bare.query("SHOW server_version")).rows[0].server_version;
  console.log(`teammem server write benchmark: ${OPS} ops per level (after ${WARMUP} warm-up), pool ${POOL}`);
  console.log(`machine: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? "?"}), Node ${process.version}, PostgreSQL ${pgVersion}\n`);
  console.log("| concurrency | run | p50 ms | p99 ms | ops/s | p50 / bare p50 |");
  console.log("|---:|---|---:|---:|---:|---:|");
  for (const { level, s, one, r, b } of rows) {
    const line = (label, m) => console.log(`| ${level} | ${label} | ${f(m.p50)} | ${f(m.p99)} | ${m.opsPerSec.toFixed(0)} | ${(m.p50 / b.p50).toFixed(2)}x |`);
    line("server write, namespace per writer", s);
    line("server write, one shared namespace", one);
    line("server read (entry)", r);
    line("bare INSERT transaction", b);
  }
  console.log("\ngoal: server p50 <= 2x bare p50");
} finally {
  await app?.close();
  await database.close();
  await bare.end();
  await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}
