#!/usr/bin/env node
// The server process of `npm run bench:load` (forked by load-clients.mjs with --expose-gc): opens the
// database the parent names (PostgreSQL URL or embedded data folder), migrates, issues one member
// token per simulated client (team "bench", users c0..cN-1), starts the real app (logging off, rate
// limit ceiling out of reach: every client comes from 127.0.0.1) on a free port and reports
// { ready: { base, tokens } }. Answers { mem: true } with { mem: { rss, heapUsed, connections } }
// measured after two full GCs; { stop: true } closes everything and exits.
import { randomBytes } from "node:crypto";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { buildApp, issueToken, openDatabase } from "../dist/index.js";

const cfg = JSON.parse(process.argv[2]);
const target = cfg.embedded ? { kind: "pglite", dataDir: cfg.dataDir } : { kind: "postgres", url: cfg.url, poolSize: 10 };
const database = await openDatabase(target);
await database.migrate();
const secret = randomBytes(32).toString("base64url");
const tokens = [];
for (let i = 0; i < cfg.clients; i++) tokens.push((await issueToken(database.db, secret, { teamName: "bench", userName: `c${i}`, role: "member" })).token);
const app = await buildApp({ db: database.db, jwtSecret: secret, limits: { rateLimitMax: 1_000_000_000 } });
const base = await app.listen({ host: "127.0.0.1", port: 0 });

const loopDelay = monitorEventLoopDelay({ resolution: 20 });
loopDelay.enable();

/** Heap and RSS after two full GCs, open streams, CPU time used so far (µs) and the event loop's delay p99 since the last sample (ms). */
async function memory() {
  for (let i = 0; i < 2; i++) {
    globalThis.gc?.();
    await new Promise((r) => setTimeout(r, 50));
  }
  const { rss, heapUsed } = process.memoryUsage();
  const { user, system } = process.cpuUsage();
  const loopP99Ms = loopDelay.percentile(99) / 1e6;
  loopDelay.reset();
  return { rss, heapUsed, connections: app.changeHub.connectionCount, cpuMicros: user + system, loopP99Ms };
}

process.on("message", async (m) => {
  if (m.mem) process.send({ mem: await memory() });
  if (m.stop) {
    await app.close();
    await database.close();
    process.send({ stopped: true }, () => process.exit(0));
  }
});
process.send({ ready: { base, tokens } });
