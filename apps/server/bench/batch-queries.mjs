#!/usr/bin/env node
// What a 100-operation batch costs on PostgreSQL, statement by statement (issue 12's batch row):
// builds the app as bench.mjs does (scratch database, logging off, rate limiting on with an
// unreachable ceiling) on a pool of ONE connection, sends --batches batches of 100 edits of ~1 KB
// (bench.mjs's batch row: one namespace, the first batch creates the entries, then edits) through
// app.inject, and prints per batch: the queries the server sent (each `pg` Client.query call, by
// its first words), their wall time from send to result, the server process's CPU
// (process.cpuUsage()) and the backend's CPU (/proc/<backend pid>/stat, utime + stime; clock
// ticks, so only the sum over many batches means anything). Linux, PostgreSQL on this host.
//   node apps/server/bench/batch-queries.mjs [--batches 60] [--warmup 10] [--ops 100] [--explain] [--keep]
// --explain: one more batch with auto_explain (ANALYZE, BUFFERS, triggers) on the pool's connection; the plans
// go to the PostgreSQL server's log (superuser only). --keep: leave the scratch database (prints its name).
// --dist DIR: the server build to measure (default ../dist), e.g. another checkout's apps/server/dist.
// Needs a build (`npm run build`); imports ../dist.
import { randomBytes, randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import pg from "pg";
import { localBenchUrl, machineLine, scratchDatabase } from "../../../scripts/lib/bench.mjs";

const { values } = parseArgs({ options: { batches: { type: "string" }, warmup: { type: "string" }, ops: { type: "string" }, explain: { type: "boolean" }, keep: { type: "boolean" }, dist: { type: "string" } } });
const { buildApp, issueToken, openDatabase } = await import(values.dist ? pathToFileURL(path.resolve(values.dist, "index.js")).href : "../dist/index.js");
const BATCHES = Number(values.batches ?? 60);
const WARMUP = Number(values.warmup ?? 10);
const OPS = Number(values.ops ?? 100);
const PARAGRAPH = "## Build\n\nRun `npm run build` before `npm test`; the CI uses Node 20 and PostgreSQL 15.\n";
/** ~1 KB of Markdown, different every call (as load.mjs). */
const content = (n) => `# Note ${n}\n\n${PARAGRAPH.repeat(12)}\nrevision ${n} ${randomUUID()}\n`;

/** Every query of every `pg` client in this process: { text, ms }, while `log` is set. */
let log = null;
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function (config, ...rest) {
  const text = typeof config === "string" ? config : (config?.text ?? config?.name ?? "?");
  const started = performance.now();
  const out = query.call(this, config, ...rest);
  if (log && out && typeof out.then === "function") {
    const entry = { text: text.replace(/\s+/g, " ").trim(), ms: 0 };
    log.push(entry);
    out.then(
      () => (entry.ms = performance.now() - started),
      () => (entry.ms = performance.now() - started),
    );
  }
  return out;
};

/** utime + stime of process `pid`, in clock ticks (1/100 s on Linux). */
async function ticks(pid) {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[11]) + Number(fields[12]);
}

const scratch = await scratchDatabase(localBenchUrl(), "teammem_bench");
try {
  {
    const setup = await openDatabase({ kind: "postgres", url: scratch.url, poolSize: 1 });
    await setup.migrate();
    await setup.close();
  }
  const database = await openDatabase({ kind: "postgres", url: scratch.url, poolSize: 1 });
  const secret = randomBytes(32).toString("base64url");
  const { token } = await issueToken(database.db, secret, { teamName: "bench", userName: "bench", role: "member" });
  const app = await buildApp({ db: database.db, jwtSecret: secret, limits: { rateLimitMax: 1_000_000_000 } });
  const versions = new Map();
  const batch = async (i) => {
    const operations = Array.from({ length: OPS }, (_, k) => {
      const path = `bench/b${k}.md`;
      return { opId: randomUUID(), path, baseVersion: versions.get(path) ?? 0, content: content(i * OPS + k) };
    });
    const res = await app.inject({ method: "POST", url: "/v1/namespaces/batch-w0/batch", headers: { authorization: `Bearer ${token}` }, payload: { operations } });
    const results = res.json().results ?? [];
    for (const r of results) {
      if (r.status !== "applied") throw new Error(`batch failed: ${JSON.stringify(r).slice(0, 300)}`);
      versions.set(r.path, r.version);
    }
    if (results.length !== OPS) throw new Error(`batch failed: ${res.statusCode} ${res.body.slice(0, 300)}`);
  };
  try {
    for (let i = 0; i < WARMUP; i++) await batch(i);
    const [{ pid }] = (await database.db.$client.query("SELECT pg_backend_pid() AS pid")).rows;
    const byStatement = new Map();
    let queries = 0;
    const cpu0 = process.cpuUsage();
    const backend0 = await ticks(pid);
    const t0 = performance.now();
    for (let i = 0; i < BATCHES; i++) {
      log = [];
      await batch(WARMUP + i);
      // Let the notifier's NOTIFY (sent after the commit, not awaited by the request) be counted.
      await new Promise((resolve) => setImmediate(resolve));
      queries += log.length;
      for (const { text, ms } of log) {
        const key = text.slice(0, 70);
        const s = byStatement.get(key) ?? { n: 0, ms: 0 };
        s.n += 1;
        s.ms += ms;
        byStatement.set(key, s);
      }
      log = null;
    }
    const wallMs = performance.now() - t0;
    if (values.explain) {
      // auto_explain on this connection only (LOAD needs a superuser); the plans go to the server's log.
      await database.db.$client.query("LOAD 'auto_explain'; SET auto_explain.log_min_duration = 0; SET auto_explain.log_analyze = on; SET auto_explain.log_buffers = on; SET auto_explain.log_triggers = on");
      console.log(`explained batch: backend pid ${pid}, plans in the server log`);
      await batch(WARMUP + BATCHES);
      await database.db.$client.query("SET auto_explain.log_min_duration = -1");
    }
    const backendMs = ((await ticks(pid)) - backend0) * 10;
    const { user, system } = process.cpuUsage(cpu0);
    const pgVersion = (await database.db.$client.query("SHOW server_version")).rows[0].server_version;
    console.log(`${BATCHES} batches of ${OPS} edits (~1 KB each) after ${WARMUP} warm-up, one pool connection, app.inject`);
    console.log(machineLine(pgVersion));
    console.log(`queries per batch: ${(queries / BATCHES).toFixed(2)}`);
    console.log(`per batch: wall ${(wallMs / BATCHES).toFixed(2)} ms, server CPU ${((user + system) / 1000 / BATCHES).toFixed(2)} ms, backend CPU ${(backendMs / BATCHES).toFixed(2)} ms`);
    console.log("| statement (first 70 characters) | per batch | wall ms per batch |");
    console.log("|---|---:|---:|");
    for (const [text, s] of byStatement) console.log(`| ${text} | ${(s.n / BATCHES).toFixed(2)} | ${(s.ms / BATCHES).toFixed(2)} |`);
  } finally {
    await app.close();
    await database.close();
  }
} finally {
  if (values.keep) console.log(`kept database ${scratch.name}`);
  else await scratch.drop();
}
