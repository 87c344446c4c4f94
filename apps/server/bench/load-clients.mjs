#!/usr/bin/env node
// Load and cost benchmark (run by `npm run bench:load`, which builds first; imports ../dist through
// load-server.mjs). One server process (load-server.mjs, forked, the real app) on a fresh
// PostgreSQL database teammem_bench_<random> of BENCH_DATABASE_URL (dropped at the end), or with
// --embedded on an embedded database in a temporary folder (removed at the end). This process
// simulates the clients: each has its own token and entry (`c<i>.md`) in one of --namespaces
// namespaces, holds a change stream (WebSocket, subscribed from cursor 0) for the whole run, and,
// at a random phase, writes its entry every --write-ms (POST .../batch, one fast-forward
// operation of ~1 KB) and reads the namespace's changes after its cursor every --read-ms
// (GET .../changes). Prints errors (any non-2xx reply, a write not applied, a stream closed or
// failing; goal 0), write latency p50/p99, reads, changes received on the streams, and the server
// process's RSS and heap (after two full GCs) at 15 s, at minute 1 and at the end (goal: no growth
// beyond noise).
// Options: --seconds 60  --clients 200  --namespaces 20  --write-ms 10000  --read-ms 5000  --embedded
import { fork } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import WebSocket from "ws";
import { adminQuery, localBenchUrl, percentile, scratchDatabase } from "../../../scripts/lib/bench.mjs";

const { values } = parseArgs({
  options: {
    seconds: { type: "string" },
    clients: { type: "string" },
    namespaces: { type: "string" },
    "write-ms": { type: "string" },
    "read-ms": { type: "string" },
    embedded: { type: "boolean" },
  },
});
const SECONDS = Number(values.seconds ?? 60);
const CLIENTS = Number(values.clients ?? 200);
const NAMESPACES = Number(values.namespaces ?? 20);
const WRITE_MS = Number(values["write-ms"] ?? 10_000);
const READ_MS = Number(values["read-ms"] ?? 5000);
const EMBEDDED = values.embedded === true;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const mib = (b) => (b / 1024 / 1024).toFixed(1);

/** ~1 KB of Markdown, different per write. */
const content = (client, n) => `# Notes of c${client}\n\n${`- write ${n}: the build uses node 20 and npm ci; deploys go through the staging cluster first\n`.repeat(10)}`;

/** The error code of a reply body (`{code}`), or "". */
function codeOf(text) {
  try {
    const body = JSON.parse(text);
    return body.code === "database_busy" ? `database_busy (${body.message})` : (body.code ?? "");
  } catch {
    return "";
  }
}

const errors = new Map();
function error(kind) {
  errors.set(kind, (errors.get(kind) ?? 0) + 1);
}

let server;
let scratch;
let dataDir;
const call = (msg, key) =>
  new Promise((resolve, reject) => {
    const onMessage = (m) => {
      if (!(key in m)) return;
      server.off("message", onMessage);
      resolve(m[key]);
    };
    server.on("message", onMessage);
    server.once("exit", (code) => reject(new Error(`server exited (${code})`)));
    if (msg) server.send(msg);
  });

try {
  const cfg = { clients: CLIENTS, embedded: EMBEDDED };
  if (EMBEDDED) {
    dataDir = await mkdtemp(join(os.tmpdir(), "teammem-bench-load-"));
    cfg.dataDir = join(dataDir, "db");
  } else {
    scratch = await scratchDatabase(localBenchUrl(), "teammem_bench");
    cfg.url = scratch.url;
  }
  server = fork(new URL("./load-server.mjs", import.meta.url), [JSON.stringify(cfg)], { execArgv: ["--expose-gc"] });
  const { base, tokens } = await call(null, "ready");

  const writeLatencies = [];
  let reads = 0;
  let received = 0;
  let running = true;
  const sockets = [];
  const clients = tokens.map((token, i) => ({ i, token, ns: `load-${i % NAMESPACES}`, path: `c${i}.md`, version: 0, cursor: 0, writes: 0 }));
  const auth = (c) => ({ authorization: `Bearer ${c.token}` });

  async function write(c) {
    const body = JSON.stringify({ clientId: `bench-c${c.i}`, operations: [{ opId: randomUUID(), path: c.path, baseVersion: c.version, content: content(c.i, c.writes++) }] });
    const t0 = performance.now();
    try {
      const res = await fetch(`${base}/v1/namespaces/${c.ns}/batch`, { method: "POST", headers: { ...auth(c), "content-type": "application/json" }, body });
      const text = await res.text();
      const ms = performance.now() - t0;
      if (res.status !== 200) return error(`write HTTP ${res.status} ${codeOf(text)}`);
      const r = JSON.parse(text).results?.[0];
      if (r?.status !== "applied") return error(`write ${r?.status ?? "no result"}`);
      c.version = r.version;
      writeLatencies.push(ms);
    } catch (err) {
      error(`write ${err.cause?.code ?? err.message}`);
    }
  }

  async function read(c) {
    try {
      const res = await fetch(`${base}/v1/namespaces/${c.ns}/changes?since=${c.cursor}&limit=100`, { headers: auth(c) });
      const text = await res.text();
      if (res.status !== 200) return error(`read HTTP ${res.status} ${codeOf(text)}`);
      c.cursor = JSON.parse(text).nextCursor;
      reads++;
    } catch (err) {
      error(`read ${err.cause?.code ?? err.message}`);
    }
  }

  function stream(c) {
    return new Promise((resolve) => {
      const ws = new WebSocket(`${base.replace(/^http/, "ws")}/v1/namespaces/${c.ns}/stream`, ["teammem.stream.v1"], { headers: auth(c), perMessageDeflate: false });
      sockets.push(ws);
      ws.on("open", () => ws.send(JSON.stringify({ type: "subscribe", protocolVersion: 1, cursor: 0 })));
      ws.on("message", (data) => {
        const m = JSON.parse(String(data));
        if (m.type === "subscribed") resolve();
        else if (m.type === "change") received++;
        else if (m.type === "error") error(`stream error ${m.code}`);
      });
      ws.on("error", (err) => {
        error(`stream ${err.message}`);
        resolve();
      });
      ws.on("close", (code) => {
        if (running) error(`stream closed ${code}`);
        resolve();
      });
    });
  }

  /** Runs `fn(c)` every `periodMs` from a random phase until the run ends (one at a time per client). */
  async function every(c, periodMs, fn) {
    await sleep(Math.random() * periodMs);
    while (running) {
      const next = performance.now() + periodMs;
      await fn(c);
      await sleep(Math.max(0, next - performance.now()));
    }
  }

  // The namespaces exist once their first entry is written: one write per namespace first.
  for (const c of clients.slice(0, NAMESPACES)) await write(c);
  for (let i = 0; i < clients.length; i += 50) await Promise.all(clients.slice(i, i + 50).map(stream));
  const loops = clients.flatMap((c) => [every(c, WRITE_MS, write), every(c, READ_MS, read)]);
  const start = performance.now();
  const startCpu = (await call({ mem: true }, "mem")).cpuMicros;
  const samples = [];
  const sampleAt = [15, 60].filter((s) => s < SECONDS);
  for (const s of sampleAt) {
    await sleep(start + s * 1000 - performance.now());
    samples.push({ at: `${s} s`, ...(await call({ mem: true }, "mem")) });
  }
  await sleep(start + SECONDS * 1000 - performance.now());
  running = false;
  await Promise.all(loops);
  samples.push({ at: `end (${SECONDS} s)`, ...(await call({ mem: true }, "mem")) });
  for (const ws of sockets) ws.close();

  const sorted = [...writeLatencies].sort((a, b) => a - b);
  const errorCount = [...errors.values()].reduce((a, b) => a + b, 0);
  const version = EMBEDDED ? "embedded (PGlite)" : `PostgreSQL ${(await adminQuery(cfg.url, "SHOW server_version")).rows[0].server_version}`;
  console.log(`teammem load benchmark: ${CLIENTS} clients (${NAMESPACES} namespaces, a stream each, a write every ${WRITE_MS} ms and a read every ${READ_MS} ms), ${SECONDS} s, one server process on ${version}`);
  console.log(`machine: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? "?"}), Node ${process.version}, load average at the end ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}\n`);
  console.log(`errors: ${errorCount}${errorCount ? ` (${[...errors].map(([k, n]) => `${k}: ${n}`).join(", ")})` : ""}  (goal 0)`);
  console.log(`writes: ${sorted.length} applied (${(sorted.length / SECONDS).toFixed(1)}/s), latency p50 ${(percentile(sorted, 50) ?? NaN).toFixed(1)} ms, p99 ${(percentile(sorted, 99) ?? NaN).toFixed(1)} ms`);
  console.log(`reads: ${reads}; changes received on the streams: ${received}\n`);
  console.log("| server process at | RSS MiB (after GC) | heap used MiB (after GC) | open streams | CPU used since the start, s | event loop delay p99 since the last sample, ms |");
  console.log("|---|---:|---:|---:|---:|---:|");
  for (const s of samples) console.log(`| ${s.at} | ${mib(s.rss)} | ${mib(s.heapUsed)} | ${s.connections} | ${((s.cpuMicros - startCpu) / 1e6).toFixed(1)} | ${s.loopP99Ms.toFixed(0)} |`);
  const [first, last] = [samples[samples.length > 2 ? 1 : 0], samples[samples.length - 1]];
  console.log(`\ngrowth from ${first.at} to the end: RSS ${mib(last.rss - first.rss)} MiB, heap ${mib(last.heapUsed - first.heapUsed)} MiB (goal: within noise)`);
  process.exitCode = errorCount === 0 ? 0 : 1;
} finally {
  if (server?.connected) {
    server.send({ stop: true });
    await Promise.race([new Promise((r) => server.once("exit", r)), sleep(10_000)]);
  }
  server?.kill();
  if (scratch) await scratch.drop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
}
