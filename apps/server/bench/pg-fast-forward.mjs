#!/usr/bin/env node
// PostgreSQL's side of a single fast-forward write (issue 12): the backend CPU per call of the
// function teammem_fast_forward (migration 0012) and of its notification against the floor's
// BEGIN; INSERT; COMMIT, and where the NOTIFY is sent. No HTTP, no server: `concurrency` connections of their
// own (each updating its own entry in its own namespace, all as one author, as bench.mjs's write
// row), and the CPU time of their backend processes (/proc/<pid>/stat: PostgreSQL must run on this
// host) over `ops` calls, per call; and the wall time per call (all connections together).
// Kinds (alternating, `rounds` times):
//   ff_notify_in_tx teammem_fast_forward as migration 0011 made it (pg_notify inside the write's
//                   transaction: how the server wrote before migration 0012);
//   ff              teammem_fast_forward as migrated (0012: no NOTIFY; nothing is notified);
//   ff_no_author    ff with a null author: on a database before migration 0016 it skips the
//                   versions.author_id foreign key's check (its KEY SHARE lock on the one principal
//                   row of every connection); from 0016 on, the same work as ff (a control);
//   ff_notifier     ff, then the server's ChangeNotifier (store/change-notifier.ts) is handed the
//                   cursor: what the server does now (the notifier's own connection is counted too);
//   floor           BEGIN; INSERT one row of the same size; COMMIT (bench.mjs's floor, without HTTP).
// Why: PostgreSQL serializes the commits of transactions that NOTIFY (a database-wide lock taken in
// PreCommit_Notify and held until after the commit record is flushed), so concurrent fast-forward
// writes cannot share a WAL flush (group commit) the way the floor's INSERTs do.
//   node apps/server/bench/pg-fast-forward.mjs [--concurrency 16] [--ops 3000] [--rounds 3] [--kinds ff,ff_no_author,floor]
// Needs a build (imports ../dist); creates and drops a scratch database on BENCH_DATABASE_URL.
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import os from "node:os";
import { parseArgs } from "node:util";
import pg from "pg";
import { adminQuery, localBenchUrl, machineLine, scratchDatabase } from "../../../scripts/lib/bench.mjs";
import { buildApp, issueToken, openDatabase } from "../dist/index.js";
import { ChangeNotifier } from "../dist/store/change-notifier.js";
import { FLOOR_TABLE_SQL } from "./floor-route.mjs";

const { values } = parseArgs({ options: { concurrency: { type: "string" }, ops: { type: "string" }, rounds: { type: "string" }, kinds: { type: "string" } } });
const C = Number(values.concurrency ?? 16);
const OPS = Number(values.ops ?? 3000);
const ROUNDS = Number(values.rounds ?? 3);
const KINDS = values.kinds?.split(",") ?? ["ff_notify_in_tx", "ff", "ff_no_author", "ff_notifier", "floor"];

const PARAGRAPH = "## Build\n\nRun `npm run build` before `npm test`; the CI uses Node 20 and PostgreSQL 15.\n";
/** ~1 KB of Markdown, different every call (as load.mjs). */
const content = (n) => `# Note ${n}\n\n${PARAGRAPH.repeat(12)}\nrevision ${n} ${randomUUID()}\n`;
const sha256 = (text) => createHash("sha256").update(text, "utf8").digest("hex");
/** User + system CPU time of process `pid`, in µs (fields 14 and 15 of /proc/<pid>/stat, in ticks of 10 ms). */
const cpuMicros = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
};

/** The function as migration 0011 made it, under another name (never part of the product). */
const fn0011 = readFileSync(new URL("../../../migrations/0011_fast_forward_function.sql", import.meta.url), "utf8");
const notifyInTx = fn0011.replace('CREATE FUNCTION "teammem_fast_forward"', 'CREATE FUNCTION "bench_ff_notify_in_tx"');
if (!notifyInTx.includes("pg_notify") || !notifyInTx.includes("bench_ff_notify_in_tx")) throw new Error("migration 0011 changed: update this experiment");

const scratch = await scratchDatabase(localBenchUrl(), "teammem_bench");
try {
  const setup = await openDatabase({ kind: "postgres", url: scratch.url, poolSize: 1 });
  await setup.migrate();
  await setup.close();
  for (const sql of [FLOOR_TABLE_SQL, notifyInTx]) await adminQuery(scratch.url, sql);
  // One entry per connection, written once through the app (namespace, author, version 1).
  const database = await openDatabase({ kind: "postgres", url: scratch.url, poolSize: 2 });
  const secret = randomBytes(32).toString("base64url");
  const { token } = await issueToken(database.db, secret, { teamName: "bench", userName: "bench", role: "member" });
  const app = await buildApp({ db: database.db, jwtSecret: secret, limits: { rateLimitMax: 1_000_000_000 } });
  const workers = [];
  for (let w = 0; w < C; w++) {
    const path = `bench/w${w}.md`;
    const res = await app.inject({
      method: "POST",
      url: `/v1/namespaces/own-w${w}/batch`,
      headers: { authorization: `Bearer ${token}` },
      payload: { operations: [{ opId: randomUUID(), path, baseVersion: 0, content: content(0) }] },
    });
    if (res.statusCode !== 200) throw new Error(`setup write: ${res.statusCode} ${res.body}`);
    workers.push({ path, name: `own-w${w}`, version: res.json().results[0].version });
  }
  await app.close();
  await database.close();

  const clients = [];
  for (const worker of workers) {
    const client = new pg.Client({ connectionString: scratch.url });
    // The scratch database is dropped (with force) after a failure: report that, not a crash hiding the failure.
    client.on("error", (err) => console.error(`connection error: ${err.message}`));
    await client.connect();
    client.backendPid = (await client.query("SELECT pg_backend_pid() AS pid")).rows[0].pid;
    worker.namespaceId = (await client.query("SELECT id FROM namespaces WHERE name = $1", [worker.name])).rows[0].id;
    clients.push(client);
  }
  const author = (await clients[0].query("SELECT author_id, author_name FROM versions LIMIT 1")).rows[0];
  // The notifier's pool: one connection, whose backend is counted with the others.
  const notifierPool = new pg.Pool({ connectionString: scratch.url, max: 1, idleTimeoutMillis: 0 }); // never closed while idle: its backend is counted
  const notifierPid = (await notifierPool.query("SELECT pg_backend_pid() AS pid")).rows[0].pid;
  const notifier = new ChangeNotifier(notifierPool, null);
  const pgVersion = (await clients[0].query("SHOW server_version")).rows[0].server_version;

  /** One call of `kind` by worker `w`. */
  const call = async (kind, client, worker, n) => {
    if (kind === "floor") {
      await client.query("BEGIN");
      await client.query("INSERT INTO bench_bare (path, content) VALUES ($1, $2)", [worker.path, content(n)]);
      await client.query("COMMIT");
      return;
    }
    const fn = kind === "ff_notify_in_tx" ? "bench_ff_notify_in_tx" : "teammem_fast_forward";
    const text = content(n);
    const opId = randomUUID();
    const hash = sha256(text);
    const applied = { opId, path: worker.path, status: "applied", version: worker.version + 1, sha256: hash, deleted: false };
    const { rows } = await client.query({
      name: fn,
      text: `SELECT written_cursor FROM ${fn}($1::uuid, $2::text, $3::text, $4::integer, $5::text, $6::text, $7::integer, $8::text, $9::jsonb, $10::uuid, $11::text, $12::text)`,
      values: [worker.namespaceId, opId, worker.path, worker.version, text, hash, Buffer.byteLength(text), sha256(opId + text), JSON.stringify(applied), kind === "ff_no_author" ? null : author.author_id, author.author_name, null],
    });
    if (rows[0]?.written_cursor == null) throw new Error(`${fn} wrote nothing`);
    worker.version += 1;
    if (kind === "ff_notifier") notifier.committed(worker.namespaceId, Number(rows[0].written_cursor));
  };
  /** `ops` calls of `kind` over every connection; @returns backend CPU µs per call, wall µs per call. */
  const run = async (kind, ops) => {
    const pids = [...clients.map((c) => c.backendPid), notifierPid];
    const before = pids.map(cpuMicros);
    const start = performance.now();
    let next = 0;
    await Promise.all(clients.map(async (client, w) => {
      for (let n = next++; n < ops; n = next++) await call(kind, client, workers[w], n);
    }));
    await notifier.flush();
    const cpu = pids.reduce((sum, pid, i) => sum + cpuMicros(pid) - before[i], 0);
    return { cpu: cpu / ops, wall: ((performance.now() - start) * 1000) / ops };
  };

  for (const kind of KINDS) await run(kind, Math.min(300, OPS));
  const results = Object.fromEntries(KINDS.map((k) => [k, []]));
  for (let round = 0; round < ROUNDS; round++) for (const kind of KINDS) results[kind].push(await run(kind, OPS));
  console.log(machineLine(pgVersion));
  console.log(`PostgreSQL backend CPU per call (all ${C} connections' backends and the notifier's), ${OPS} calls per round, ${ROUNDS} rounds; load average at the end ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}`);
  console.log("| kind | backend CPU µs/call, median (rounds) | wall µs/call, median (rounds) |\n|---|---:|---:|");
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  for (const kind of KINDS) {
    const cpu = results[kind].map((r) => r.cpu);
    const wall = results[kind].map((r) => r.wall);
    console.log(`| ${kind} | ${median(cpu).toFixed(0)} (${cpu.map((x) => x.toFixed(0)).join(", ")}) | ${median(wall).toFixed(0)} (${wall.map((x) => x.toFixed(0)).join(", ")}) |`);
  }
  for (const client of clients) await client.end();
  await notifier.close();
  await notifierPool.end();
} finally {
  await scratch.drop();
}
