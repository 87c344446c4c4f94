#!/usr/bin/env node
// Server write benchmark (run by `npm run bench:server`, which builds first; imports ../dist).
// Against PostgreSQL (BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres) it
// creates a fresh database teammem_bench_<random>, drops it at the end, and measures at concurrency
// 1, 16 and 64, in the same run. This process only hosts the server (logging off, rate limiting on
// with a ceiling the run cannot reach); the load generator is a separate process (load.mjs, forked),
// so the HTTP client's CPU is not spent on the server's event loop. Per level:
//   server write: one single-entry write per request, POST /v1/namespaces/<ns>/batch over keep-alive
//           HTTP (one socket per worker); each worker updates its own entry from its last version
//           (fast-forward), ~1 KB of Markdown re-scanned by the server. Two layouts: every worker in
//           its own namespace (writers run in parallel), and all workers in one namespace (its
//           writers take the namespace lock in turn);
//   read:   GET /v1/namespaces/<ns>/entry (HTTP + auth + one indexed select);
//   healthz: GET /healthz (HTTP alone: no auth, no database): the floor of any request;
//   floor:  POST /bench/floor, a route this benchmark adds (never the product): the same auth (rate
//           limiter, JWT, token lookup, member role), one single-row INSERT transaction on the
//           server's pool. The goal's ratio is the write's p50 over this floor's p50;
//   bare:   BEGIN; INSERT one row of the same size; COMMIT from the load process on a pg pool (no
//           HTTP, no auth; for information).
// Also printed: the server process's CPU time per operation (process.cpuUsage() around each run).
// The server's pool and the bare pool have the same size at each level: min(concurrency, --pool).
// Prints p50/p99 latency (ms), throughput (ops/s) and the p50 ratio to the floor (goal: server write
// <= 1.5x the floor at every level; 100-operation batches >= 5,000 ops/s).
// Options: --ops N (operations per measurement, default 1000), --warmup N (default 200),
//          --pool N (largest pool, default 16), --levels 1,16,64.
import { fork } from "node:child_process";
import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import { adminQuery, localBenchUrl, machineLine, scratchDatabase } from "../../../scripts/lib/bench.mjs";
import { buildApp, issueToken, openDatabase } from "../dist/index.js";
import { addFloorRoute, FLOOR_TABLE_SQL } from "./floor-route.mjs";

const { values } = parseArgs({
  options: { ops: { type: "string" }, warmup: { type: "string" }, pool: { type: "string" }, levels: { type: "string" } },
});
const OPS = Number(values.ops ?? 1000);
const WARMUP = Number(values.warmup ?? 200);
const MAX_POOL = Number(values.pool ?? 16);
const LEVELS = (values.levels ?? "1,16,64").split(",").map(Number);
const scratch = await scratchDatabase(localBenchUrl(), "teammem_bench");
const url = scratch.url;
const load = fork(new URL("./load.mjs", import.meta.url));
load.on("message", (m) => {
  if (!m.cpu) return;
  const { user, system } = process.cpuUsage();
  load.send({ cpuMicros: user + system });
});
/** Sends `msg` to the load process (measure one level); resolves its rows. */
const measure = (msg) =>
  new Promise((resolve, reject) => {
    load.send(msg);
    const onMessage = (m) => {
      if (m.cpu) return;
      load.off("message", onMessage);
      if (m.error) reject(new Error(`load generator: ${m.error}`));
      else resolve(m.rows);
    };
    load.on("message", onMessage);
    load.once("exit", (code) => reject(new Error(`load generator exited (${code})`)));
  }).finally(() => load.removeAllListeners("exit"));
try {
  {
    const setup = await openDatabase({ kind: "postgres", url, poolSize: 1 });
    await setup.migrate();
    await setup.close();
    await adminQuery(url, FLOOR_TABLE_SQL);
  }
  const secret = randomBytes(32).toString("base64url");
  let token;
  const results = [];
  for (const level of LEVELS) {
    const pool = Math.min(level, MAX_POOL);
    const database = await openDatabase({ kind: "postgres", url, poolSize: pool });
    token ??= (await issueToken(database.db, secret, { teamName: "bench", userName: "bench", role: "member" })).token;
    const app = await buildApp({ db: database.db, jwtSecret: secret, limits: { rateLimitMax: 1_000_000_000 } });
    addFloorRoute(app, database.db.$client);
    try {
      const base = await app.listen({ host: "127.0.0.1", port: 0 });
      results.push({ level, pool, rows: await measure({ level, base, token, dbUrl: url, pool, ops: OPS, warmup: WARMUP }) });
    } finally {
      await app.close();
      await database.close();
    }
  }

  const f = (n) => n.toFixed(2);
  const pgVersion = (await adminQuery(url, "SHOW server_version")).rows[0].server_version;
  console.log(`teammem server write benchmark: ${OPS} ops per measurement (after ${WARMUP} warm-up), load generator in its own process`);
  console.log(`${machineLine(pgVersion)}\n`);
  console.log("| concurrency | pool | run | p50 ms | p99 ms | ops/s | p50 / floor p50 | server CPU µs/op |");
  console.log("|---:|---:|---|---:|---:|---:|---:|---:|");
  const LABELS = {
    own: "server write, namespace per writer",
    shared: "server write, one shared namespace",
    read: "server read (entry: HTTP + auth + select)",
    health: "GET /healthz (HTTP alone)",
    batch: "server write, 100-op batches (ops/s and CPU per operation)",
    floor: "floor: POST /bench/floor (same auth, one INSERT transaction)",
    bare: "bare INSERT transaction (load process, no HTTP)",
  };
  for (const { level, pool, rows } of results) {
    for (const [key, label] of Object.entries(LABELS)) {
      const m = rows[key];
      console.log(`| ${level} | ${pool} | ${label} | ${f(m.p50)} | ${f(m.p99)} | ${m.opsPerSec.toFixed(0)} | ${(m.p50 / rows.floor.p50).toFixed(2)}x | ${key === "bare" ? "-" : m.serverCpuMicros.toFixed(0)} |`);
    }
  }
  console.log("\ngoal (issue 12): server write (namespace per writer) p50 <= 1.5x the floor route's p50 at every level; 100-op batches >= 5,000 ops/s");
  for (const { level, rows } of results) {
    const ratio = rows.own.p50 / rows.floor.p50;
    console.log(`  concurrency ${level}: write ${ratio.toFixed(2)}x the floor (${ratio <= 1.5 ? "met" : "not met"}); batches ${rows.batch.opsPerSec.toFixed(0)} ops/s (${rows.batch.opsPerSec >= 5000 ? "met" : "not met"})`);
  }
} finally {
  load.kill();
  await scratch.drop();
}
