#!/usr/bin/env node
// Change-stream fan-out benchmark (run by `npm run bench:fanout`, which builds first; imports ../dist).
// This process hosts two servers side by side: the teammem server (buildApp on a fresh PostgreSQL
// database teammem_bench_<random> of BENCH_DATABASE_URL, dropped at the end; logging off) and a
// bare `ws` server that broadcasts every message its writer socket sends to every other socket.
// The subscribers and the writer run in a forked process (fanout-load.mjs). Per level (1, 100,
// 1,000, 5,000 subscribers, one namespace each level):
//   teammem: N sockets subscribe to the stream; a writer commits 200 single-entry changes (~1 KB of
//            Markdown each, POST .../batch, one after another); latency = receipt time minus
//            commit time, the commit time being when the load process's own LISTEN connection
//            gets the commit's NOTIFY (PostgreSQL sends it at commit);
//   bare ws: N sockets on the bare server; the writer sends the same 200 frames teammem delivered,
//            at the same intervals; latency = receipt time minus send time.
// Both: p50/p99 latency (ms), messages/s delivered (N x 200 over first commit/send to last
// receipt), and server memory per connection (heap and RSS after GC with N sockets subscribed,
// minus before, over N). Prints the ratios teammem / bare.
// Options: --levels 1,100,1000,5000  --changes 200  --content-bytes 1000
import { fork } from "node:child_process";
import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import { WebSocketServer } from "ws";
import { adminQuery, localBenchUrl, machineLine, scratchDatabase } from "../../../scripts/lib/bench.mjs";
import { buildApp, issueToken, openDatabase } from "../dist/index.js";

const { values } = parseArgs({ options: { levels: { type: "string" }, changes: { type: "string" }, "content-bytes": { type: "string" } } });
const LEVELS = (values.levels ?? "1,100,1000,5000").split(",").map(Number);
const CHANGES = Number(values.changes ?? 200);
const CONTENT_BYTES = Number(values["content-bytes"] ?? 1000);
const adminUrl = localBenchUrl();
if (typeof globalThis.gc !== "function") throw new Error("run with node --expose-gc (npm run bench:fanout does)");

/** Waits until the closed sockets of the last phase are gone on both servers. */
async function settled(app, bare) {
  for (let i = 0; i < 500 && (app.changeHub.connectionCount > 0 || bare.clients.size > 0); i++) await new Promise((r) => setTimeout(r, 20));
}

/** Heap and RSS after two full GCs (bytes). */
async function memory() {
  for (let i = 0; i < 2; i++) {
    globalThis.gc();
    await new Promise((r) => setTimeout(r, 50));
  }
  const { heapUsed, rss } = process.memoryUsage();
  return { heapUsed, rss };
}

/** The bare baseline: every message of a socket that said "writer" goes to every other socket. */
function startBare() {
  const wss = new WebSocketServer({ host: "127.0.0.1", port: 0, perMessageDeflate: false });
  wss.on("connection", (socket) => {
    socket.once("message", (hello) => {
      if (String(hello) !== "writer") return;
      socket.on("message", (data) => {
        const frame = String(data);
        for (const client of wss.clients) if (client !== socket) client.send(frame);
      });
    });
  });
  return new Promise((resolve) => wss.once("listening", () => resolve(wss)));
}

const scratch = await scratchDatabase(adminUrl, "teammem_bench");
const url = scratch.url;
const load = fork(new URL("./fanout-load.mjs", import.meta.url));
/** Sends one command to the load process and resolves its answer. */
const ask = (msg) =>
  new Promise((resolve, reject) => {
    const onMessage = (m) => {
      load.off("message", onMessage);
      load.off("exit", onExit);
      if (m.error) reject(new Error(`load process: ${m.error}`));
      else resolve(m);
    };
    const onExit = (code) => reject(new Error(`load process exited (${code})`));
    load.on("message", onMessage);
    load.once("exit", onExit);
    load.send(msg);
  });

const database = await openDatabase({ kind: "postgres", url, poolSize: 10 });
let app;
let bare;
try {
  await database.migrate();
  const secret = randomBytes(32).toString("base64url");
  const { token } = await issueToken(database.db, secret, { teamName: "bench", userName: "bench", role: "member" });
  app = await buildApp({ db: database.db, jwtSecret: secret, limits: { rateLimitMax: 0 } });
  const base = await app.listen({ host: "127.0.0.1", port: 0 });
  bare = await startBare();
  const bareUrl = `ws://127.0.0.1:${bare.address().port}`;
  await ask({ cmd: "init", base, bareUrl, token, dbUrl: url, contentBytes: CONTENT_BYTES });

  // Warm-up (not reported): JIT, pools, caches of both servers.
  await ask({ cmd: "teammem", namespace: "warmup", subscribers: 10, changes: 50, phase: "connect" });
  await ask({ cmd: "teammem", phase: "run" });
  await ask({ cmd: "bare", subscribers: 10, phase: "connect" });
  await ask({ cmd: "bare", phase: "run" });

  const rows = [];
  for (const n of LEVELS) {
    await settled(app, bare);
    const m0 = await memory();
    await ask({ cmd: "teammem", namespace: `level-${n}`, subscribers: n, changes: CHANGES, phase: "connect" });
    const m1 = await memory();
    const t = await ask({ cmd: "teammem", phase: "run" });
    await settled(app, bare);
    const b0 = await memory();
    await ask({ cmd: "bare", subscribers: n, phase: "connect" });
    const b1 = await memory();
    const b = await ask({ cmd: "bare", phase: "run" });
    rows.push({
      n,
      teammem: { ...t, heapPerConn: (m1.heapUsed - m0.heapUsed) / n, rssPerConn: (m1.rss - m0.rss) / n },
      bare: { ...b, heapPerConn: (b1.heapUsed - b0.heapUsed) / n, rssPerConn: (b1.rss - b0.rss) / n },
    });
    console.error(`level ${n} done`);
  }

  const pgVersion = (await adminQuery(url, "SHOW server_version")).rows[0].server_version;
  const f = (x, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : "-");
  const kb = (x) => f(x / 1024, 1);
  console.log(`teammem change-stream fan-out: ${CHANGES} changes of ~${CONTENT_BYTES} B per level, subscribers and writer in their own process`);
  console.log(`${machineLine(pgVersion)}\n`);
  console.log("| subscribers | server | p50 ms | p99 ms | max ms | messages/s | received | heap KiB/conn | RSS KiB/conn |");
  console.log("|---:|---|---:|---:|---:|---:|---:|---:|---:|");
  for (const { n, teammem, bare: b } of rows) {
    for (const [label, r] of [["teammem", teammem], ["bare ws", b]]) {
      console.log(`| ${n} | ${label} | ${f(r.p50, 2)} | ${f(r.p99, 2)} | ${f(r.max, 1)} | ${f(r.perSec, 0)} | ${r.received}/${r.expected} | ${kb(r.heapPerConn)} | ${kb(r.rssPerConn)} |`);
    }
  }
  console.log("\n| subscribers | p50 ratio | p99 ratio | messages/s ratio | heap/conn ratio |");
  console.log("|---:|---:|---:|---:|---:|");
  for (const { n, teammem, bare: b } of rows) {
    console.log(`| ${n} | ${f(teammem.p50 / b.p50, 2)}x | ${f(teammem.p99 / b.p99, 2)}x | ${f(teammem.perSec / b.perSec, 2)}x | ${f(teammem.heapPerConn / b.heapPerConn, 2)}x |`);
  }
  console.log("\ngoal: p99 < 50 ms at 1,000 subscribers on loopback, within 2x of bare ws");
} finally {
  load.kill();
  await app?.close();
  bare?.close();
  await database.close();
  await scratch.drop();
}
