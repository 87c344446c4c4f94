#!/usr/bin/env node
// CPU profile of the server during bench.mjs's write row (issue 12): where a single write's server
// CPU goes, next to the floor route's. Builds the app as bench.mjs does (PostgreSQL scratch database,
// logging off, rate limiting on with an unreachable ceiling, pool min(concurrency, 16)), forks a load
// process (this file with --load), and records the server process's CPU with node:inspector only
// while the measured requests run (warm-up excluded). Writes <out>/write.cpuprofile and
// <out>/<kind>.cpuprofile (open them in Chrome DevTools or speedscope) and prints, per profile, the
// functions and packages with the most self time and the inclusive time of our code's frames.
// Kinds: write (bench.mjs's write row: one fast-forward operation of ~1 KB per request, a namespace
// per worker), shape (the write route's HTTP layer without its store: same auth, schemas, zod
// validation and serialization, a fixed result), floor (bench.mjs's floor route), health (/healthz),
// batch (bench.mjs's batch row: 100 operations of ~1 KB per request, a namespace per worker; the
// per-request figures are per batch of 100).
// With --cpu-only, no profiler: the kinds alternate for --rounds rounds and the server's CPU time
// per request (process.cpuUsage()) is printed, median and every round.
//   node apps/server/bench/profile.mjs [--concurrency 16] [--ops 2000] [--warmup 300] [--out DIR]
//        [--kinds write,shape,floor] [--cpu-only [--rounds 3]]
// Needs a build (`npm run build`); imports ../dist.
import { fork } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import http from "node:http";
import os from "node:os";
import { Session } from "node:inspector/promises";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    concurrency: { type: "string" },
    ops: { type: "string" },
    warmup: { type: "string" },
    out: { type: "string" },
    load: { type: "boolean" },
    kinds: { type: "string" },
    "cpu-only": { type: "boolean" },
    rounds: { type: "string" },
  },
});

const PARAGRAPH = "## Build\n\nRun `npm run build` before `npm test`; the CI uses Node 20 and PostgreSQL 15.\n";
/** ~1 KB of Markdown, different every call (as load.mjs). */
const content = (n) => `# Note ${n}\n\n${PARAGRAPH.repeat(12)}\nrevision ${n} ${randomUUID()}\n`;

if (values.load) {
  // Load process: { base, token, concurrency, ops, kind } → runs them, answers { done }.
  /** Each worker's entry's last version per database, by token (the warm-up and the measured run write the same entries). */
  const versions = new Map();
  process.on("message", async ({ base, token, concurrency, ops, kind }) => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency, maxFreeSockets: concurrency });
    const post = (url, payload) =>
      new Promise((resolve, reject) => {
        const body = JSON.stringify(payload);
        const req = http.request(url, { method: "POST", agent, headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "content-length": Buffer.byteLength(body) } }, (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (c) => (text += c));
          res.on("end", () => resolve({ status: res.statusCode, body: text }));
        });
        req.on("error", reject);
        req.end(body);
      });
    let next = 0;
    /** Milliseconds from each request's start to its reply read, in completion order. */
    const latencies = [];
    await Promise.all(
      Array.from({ length: concurrency }, async (_, w) => {
        for (let i = next++, t0 = performance.now(); i < ops; latencies.push(performance.now() - t0), i = next++, t0 = performance.now()) {
          if (kind === "health") {
            await new Promise((resolve, reject) => http.get(`${base}/healthz`, { agent }, (res) => res.resume().on("end", resolve)).on("error", reject));
            continue;
          }
          if (kind === "floor") {
            const res = await post(`${base}/bench/floor`, { path: `bench/w${w}.md`, content: content(i) });
            if (res.status !== 200) throw new Error(`floor: ${res.status} ${res.body}`);
            continue;
          }
          if (kind === "shape") {
            const res = await post(`${base}/bench/write-shape/own-w${w}`, { operations: [{ opId: randomUUID(), path: `bench/w${w}.md`, baseVersion: i + 1, content: content(i) }] });
            if (res.status !== 200) throw new Error(`shape: ${res.status} ${res.body}`);
            continue;
          }
          if (kind === "batch") {
            // 100 operations per request, a namespace per worker: new entries on the first request, then edits (as load.mjs).
            const ns = `batch-w${w}`;
            const operations = Array.from({ length: 100 }, (_, k) => {
              const path = `bench/b${k}.md`;
              return { opId: randomUUID(), path, baseVersion: versions.get(`${token} ${ns}/${path}`) ?? 0, content: content(i * 100 + k) };
            });
            const res = await post(`${base}/v1/namespaces/${ns}/batch`, { operations });
            const results = res.status === 200 ? JSON.parse(res.body).results : [];
            for (const r of results) {
              if (r.status !== "applied") throw new Error(`batch: ${JSON.stringify(r).slice(0, 300)}`);
              versions.set(`${token} ${ns}/${r.path}`, r.version);
            }
            if (results.length !== 100) throw new Error(`batch: ${res.status} ${res.body.slice(0, 300)}`);
            continue;
          }
          const path = `bench/w${w}.md`;
          const res = await post(`${base}/v1/namespaces/own-w${w}/batch`, { operations: [{ opId: randomUUID(), path, baseVersion: versions.get(`${token} ${w}`) ?? 0, content: content(i) }] });
          const r = res.status === 200 ? JSON.parse(res.body).results?.[0] : undefined;
          if (r?.status !== "applied") throw new Error(`write: ${res.status} ${res.body.slice(0, 300)}`);
          versions.set(`${token} ${w}`, r.version);
        }
      }),
    );
    agent.destroy();
    latencies.sort((a, b) => a - b);
    process.send({ done: true, p50: latencies[Math.floor(latencies.length / 2)] });
  });
} else {
  await main();
}

async function main() {
  const { adminQuery, localBenchUrl, scratchDatabase } = await import("../../../scripts/lib/bench.mjs");
  const { buildApp, issueToken, openDatabase } = await import("../dist/index.js");
  const { addFloorRoute, FLOOR_TABLE_SQL } = await import("./floor-route.mjs");
  const { BatchRequest, BatchResponse, NamespaceParams } = await import("@teammem/protocol");
  const concurrency = Number(values.concurrency ?? 16);
  const ops = Number(values.ops ?? 2000);
  const warmup = Number(values.warmup ?? 300);
  const out = values.out ?? "profiles";
  await mkdir(out, { recursive: true });

  const scratch = await scratchDatabase(localBenchUrl(), "teammem_bench");
  const load = fork(new URL(import.meta.url), ["--load"], { execArgv: [] });
  const session = new Session();
  session.connect();
  try {
    const setup = await openDatabase({ kind: "postgres", url: scratch.url, poolSize: 1 });
    await setup.migrate();
    await setup.close();
    await adminQuery(scratch.url, FLOOR_TABLE_SQL);
    const database = await openDatabase({ kind: "postgres", url: scratch.url, poolSize: Math.min(concurrency, 16) });
    const secret = randomBytes(32).toString("base64url");
    const { token } = await issueToken(database.db, secret, { teamName: "bench", userName: "bench", role: "member" });
    const app = await buildApp({ db: database.db, jwtSecret: secret, limits: { rateLimitMax: 1_000_000_000 } });
    addFloorRoute(app, database.db.$client);
    // The write route's HTTP layer without its store: same auth hooks, params, body and response
    // schemas (zod validation and serialization), a fixed "applied" result; no database access.
    app.post(
      "/bench/write-shape/:namespace",
      {
        onRequest: [app.authenticate, app.requireRole("member")],
        schema: { params: NamespaceParams, body: BatchRequest, response: { 200: BatchResponse } },
      },
      async (request) => ({
        results: request.body.operations.map((op) => ({ opId: op.opId, path: op.path, status: "applied", version: op.baseVersion + 1, sha256: "0".repeat(64), deleted: false, cursor: 1 })),
        server: (await app.serverIdentity.current()).server,
      }),
    );
    const base = await app.listen({ host: "127.0.0.1", port: 0 });
    const runLoad = (kind, n) =>
      new Promise((resolve, reject) => {
        load.once("message", resolve);
        load.once("exit", (code) => reject(new Error(`load process exited (${code})`)));
        load.send({ base, token, concurrency, ops: n, kind });
      }).finally(() => load.removeAllListeners("exit"));
    const kinds = (values.kinds ?? "write,shape,floor").split(",");
    if (values["cpu-only"]) {
      // Server CPU per request only, no profiler; kinds alternate for `rounds` rounds so outside load hits them alike.
      for (const kind of kinds) await runLoad(kind, warmup);
      const cpuPerRequest = Object.fromEntries(kinds.map((k) => [k, []]));
      for (let round = 0; round < Number(values.rounds ?? 3); round++) {
        for (const kind of kinds) {
          const cpu0 = process.cpuUsage();
          await runLoad(kind, ops);
          const cpu = process.cpuUsage(cpu0);
          cpuPerRequest[kind].push((cpu.user + cpu.system) / ops);
        }
      }
      console.log(`server CPU µs/request, ${ops} requests per round at concurrency ${concurrency}, load average ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}:`);
      for (const kind of kinds) {
        const all = cpuPerRequest[kind].sort((a, b) => a - b);
        console.log(`  ${kind.padEnd(6)} median ${all[Math.floor(all.length / 2)].toFixed(0)}  (rounds: ${all.map((c) => c.toFixed(0)).join(", ")})`);
      }
      await app.close();
      await database.close();
      return;
    }
    await session.post("Profiler.enable");
    await session.post("Profiler.setSamplingInterval", { interval: 100 });
    for (const kind of kinds) {
      await runLoad(kind, warmup);
      const cpu0 = process.cpuUsage();
      await session.post("Profiler.start");
      await runLoad(kind, ops);
      const { profile } = await session.post("Profiler.stop");
      const cpu = process.cpuUsage(cpu0);
      await writeFile(`${out}/${kind}.cpuprofile`, JSON.stringify(profile));
      console.log(`\n## ${kind}: ${ops} requests at concurrency ${concurrency}; server CPU ${((cpu.user + cpu.system) / ops).toFixed(0)} µs/request (with the profiler on)`);
      summarize(profile, ops);
    }
    await app.close();
    await database.close();
  } finally {
    session.disconnect();
    load.kill();
    await scratch.drop();
  }
}

/** Prints the top self-time functions and packages, and inclusive time of frames of interest, of a V8 CPU profile. */
function summarize(profile, ops) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const dt = new Map();
  for (let i = 0; i < profile.samples.length; i++) dt.set(profile.samples[i], (dt.get(profile.samples[i]) ?? 0) + (profile.timeDeltas[i] ?? 0));
  const total = [...dt.values()].reduce((a, b) => a + b, 0);
  const idle = [...dt].filter(([id]) => ["(idle)", "(program)"].includes(byId.get(id).callFrame.functionName)).reduce((a, [, t]) => a + t, 0);
  const where = (cf) => {
    const url = cf.url.replace(/^file:\/\//, "");
    const m = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
    return m ? m[1] : url.includes("/dist/") || url.includes("/src/") ? url.replace(/.*\/(apps|packages)\//, "$1/") : url || "(native)";
  };
  const self = new Map();
  const pkg = new Map();
  const inclusive = new Map();
  for (const [id, t] of dt) {
    const cf = byId.get(id).callFrame;
    const key = `${cf.functionName || "(anonymous)"} ${where(cf)}:${cf.lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + t);
    const p = where(cf).split("/").slice(0, 4).join("/");
    pkg.set(p, (pkg.get(p) ?? 0) + t);
    const seen = new Set();
    for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
      const c = byId.get(cur).callFrame;
      const k = `${c.functionName || "(anonymous)"} ${where(c)}:${c.lineNumber + 1}`;
      if (seen.has(k)) continue;
      seen.add(k);
      inclusive.set(k, (inclusive.get(k) ?? 0) + t);
    }
  }
  const busy = total - idle;
  const us = (t) => `${(t / ops).toFixed(0).padStart(5)} µs`;
  console.log(`sampled ${(total / ops).toFixed(0)} µs/request, of which not idle ${(busy / ops).toFixed(0)} µs (wall time on the stack: on a loaded machine it includes time the process waited for a core)`);
  console.log("self time per request, top 25 (function file:line):");
  for (const [k, t] of [...self].filter(([k]) => !/^\((idle|program)\)/.test(k)).sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`  ${us(t)}  ${k}`);
  console.log("self time per request by package or folder, top 20:");
  for (const [k, t] of [...pkg].sort((a, b) => b[1] - a[1]).slice(0, 20)) console.log(`  ${us(t)}  ${k}`);
  console.log("inclusive time per request of our code and the HTTP stack's packages, top 50:");
  const ours = /(apps|packages)\/|fastify|zod|prom-client|fast-jwt|rate-limit|drizzle|lru-cache|find-my-way/;
  for (const [k, t] of [...inclusive].filter(([k]) => ours.test(k)).sort((a, b) => b[1] - a[1]).slice(0, 50)) console.log(`  ${us(t)}  ${k}`);
}
