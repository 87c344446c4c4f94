#!/usr/bin/env node
// Instruction counts of the server's side of a write (issue 12), which do not depend on the
// machine's load: builds the app of one `apps/server/dist` (PostgreSQL scratch database, logging
// off, rate limiting on with an unreachable ceiling, as bench.mjs), sends requests with
// `app.inject` one after the other (no sockets on the HTTP side; the `pg` client's are real), and
// turns callgrind's instrumentation on around the measured requests only (callgrind_control -i).
//
//   valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file=/tmp/cg.new \
//     node apps/server/bench/callgrind-write.mjs apps/server/dist [--kind write] [--ops 300] [--warmup 300]
//   callgrind_annotate /tmp/cg.new | head     # "Collected": instructions of the measured requests
//
// Kinds: write (bench.mjs's write row: one fast-forward operation of ~1 KB in its own namespace,
// per request), floor (bench.mjs's floor route), batch (100 edits of ~1 KB per request). Run it
// with the dist of main (another checkout) and with yours, and compare the totals per request.
// Without valgrind it prints the process CPU per request instead (process.cpuUsage()).
import { spawn } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { adminQuery, localBenchUrl, scratchDatabase } from "../../../scripts/lib/bench.mjs";
import { addFloorRoute, FLOOR_TABLE_SQL } from "./floor-route.mjs";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { kind: { type: "string" }, ops: { type: "string" }, warmup: { type: "string" } },
});
const dist = path.resolve(positionals[0] ?? new URL("../dist", import.meta.url).pathname);
const kind = values.kind ?? "write";
const ops = Number(values.ops ?? 300);
const warmup = Number(values.warmup ?? 300);

const PARAGRAPH = "## Build\n\nRun `npm run build` before `npm test`; the CI uses Node 20 and PostgreSQL 15.\n";
/** ~1 KB of Markdown, different every call (as load.mjs), the same sequence for every build. */
const content = (n) => `# Note ${n}\n\n${PARAGRAPH.repeat(12)}\nrevision ${n} ${String(n).padStart(36, "0")}\n`;

/** Turns callgrind's collection on or off (no-op outside valgrind: callgrind_control finds no process). */
const collect = (on) =>
  new Promise((resolve) => {
    const child = spawn("callgrind_control", ["-i", on ? "on" : "off", String(process.pid)], { stdio: "ignore" });
    child.on("exit", resolve);
    child.on("error", resolve);
  });

const scratch = await scratchDatabase(localBenchUrl(), "teammem_bench");
try {
  const { buildApp, issueToken, openDatabase } = await import(pathToFileURL(path.join(dist, "index.js")).href);
  const setup = await openDatabase({ kind: "postgres", url: scratch.url, poolSize: 1 });
  await setup.migrate();
  await setup.close();
  await adminQuery(scratch.url, FLOOR_TABLE_SQL);
  const database = await openDatabase({ kind: "postgres", url: scratch.url, poolSize: 1 });
  const secret = randomBytes(32).toString("base64url");
  const { token } = await issueToken(database.db, secret, { teamName: "bench", userName: "bench", role: "member" });
  const app = await buildApp({ db: database.db, jwtSecret: secret, limits: { rateLimitMax: 1_000_000_000 } });
  addFloorRoute(app, database.db.$client);
  await app.ready();
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  const versions = new Map();
  let n = 0;
  const one = async () => {
    const i = n++;
    if (kind === "floor") {
      const res = await app.inject({ method: "POST", url: "/bench/floor", headers, payload: JSON.stringify({ path: "bench/w0.md", content: content(i) }) });
      if (res.statusCode !== 200) throw new Error(`floor: ${res.statusCode} ${res.body}`);
      return;
    }
    const count = kind === "batch" ? 100 : 1;
    const ns = kind === "batch" ? "batch-w0" : "own-w0";
    const operations = Array.from({ length: count }, (_, k) => {
      const p = `bench/b${k}.md`;
      return { opId: randomUUID(), path: p, baseVersion: versions.get(p) ?? 0, content: content(i * count + k) };
    });
    const res = await app.inject({ method: "POST", url: `/v1/namespaces/${ns}/batch`, headers, payload: JSON.stringify({ operations }) });
    const results = res.statusCode === 200 ? res.json().results : [];
    for (const r of results) {
      if (r.status !== "applied") throw new Error(`${kind}: ${JSON.stringify(r).slice(0, 300)}`);
      versions.set(r.path, r.version);
    }
    if (results.length !== count) throw new Error(`${kind}: ${res.statusCode} ${res.body.slice(0, 300)}`);
  };
  for (let k = 0; k < warmup; k++) await one();
  await collect(true);
  const cpu0 = process.cpuUsage();
  for (let k = 0; k < ops; k++) await one();
  const cpu = process.cpuUsage(cpu0);
  await collect(false);
  console.log(`${kind}: ${ops} requests after ${warmup} (${dist}); process CPU ${((cpu.user + cpu.system) / ops).toFixed(0)} µs/request`);
  await app.close();
  await database.close();
} finally {
  await scratch.drop();
}
