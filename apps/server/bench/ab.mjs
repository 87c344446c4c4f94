#!/usr/bin/env node
// Old vs new server CPU per request in ONE process (issue 12): for a loaded machine, where wall-time
// ratios of separate runs are noise. Builds one app per build (each `apps/server/dist` folder given,
// its own `pg` pool, all on one scratch PostgreSQL database and one team), forks profile.mjs's load
// process, and runs the kinds against each app in turn, round after round, so outside load hits
// every build alike. Prints, per kind and build, the server process's CPU per request
// (process.cpuUsage() around each round: mean and median of the rounds) and each build's ratio to
// the first: of the means, and the median and quartiles of the rounds' ratios; then each build's
// p50 latency per kind (median of the rounds' p50s) and its ratio to the last kind's (the floor in
// `--kinds write,floor`), round by round. Short rounds, many
// of them (the default 20 x 250 requests) interleave the builds finely.
//   node apps/server/bench/ab.mjs --build old=/path/to/old/apps/server/dist --build new=apps/server/dist
//        [--kinds write,floor] [--concurrency 16] [--ops 250] [--warmup 2000] [--rounds 20] [--database-per-build]
// Each folder must be a build (`npm run build`) of a checkout with its own node_modules; the
// scratch database is migrated by the first build. With --database-per-build each build gets a
// scratch database of its own, migrated by that build (its checkout's /migrations): to compare
// schema changes (e.g. migration 0016, no foreign key on versions.author_id); it also prints each
// build's PostgreSQL backend CPU per request (/proc/<pid>/stat of the backends connected to the
// build's database, before and after each round: PostgreSQL must run on this host).
import { fork } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { adminQuery, localBenchUrl, machineLine, scratchDatabase } from "../../../scripts/lib/bench.mjs";
import { addFloorRoute, FLOOR_TABLE_SQL } from "./floor-route.mjs";

const { values } = parseArgs({
  options: {
    build: { type: "string", multiple: true },
    kinds: { type: "string" },
    concurrency: { type: "string" },
    ops: { type: "string" },
    warmup: { type: "string" },
    rounds: { type: "string" },
    "database-per-build": { type: "boolean" },
  },
});
const builds = (values.build ?? [`current=${new URL("../dist", import.meta.url).pathname}`]).map((b) => {
  const [name, dir] = b.includes("=") ? [b.slice(0, b.indexOf("=")), b.slice(b.indexOf("=") + 1)] : [path.basename(path.dirname(path.dirname(path.dirname(b)))), b];
  return { name, dir: path.resolve(dir) };
});
const kinds = (values.kinds ?? "write,floor").split(",");
const concurrency = Number(values.concurrency ?? 16);
const ops = Number(values.ops ?? 250);
const warmup = Number(values.warmup ?? 2000);
const rounds = Number(values.rounds ?? 20);

const perBuild = values["database-per-build"] ?? false;
const scratches = [];
/** CPU time (user + system, µs) of each backend connected to database `name`, by pid (/proc/<pid>/stat fields 14 and 15, 10 ms ticks). */
const backendCpu = async (name) => {
  const { rows } = await adminQuery(localBenchUrl(), `SELECT pid FROM pg_stat_activity WHERE datname = '${name}'`);
  const cpu = new Map();
  for (const { pid } of rows) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
      cpu.set(pid, (Number(fields[11]) + Number(fields[12])) * 10_000);
    } catch {
      // ended meanwhile
    }
  }
  return cpu;
};
const load = fork(new URL("./profile.mjs", import.meta.url), ["--load"], { execArgv: [] });
const apps = [];
try {
  const secret = randomBytes(32).toString("base64url");
  let token;
  for (const [i, build] of builds.entries()) {
    const { buildApp, issueToken, openDatabase } = await import(pathToFileURL(path.join(build.dir, "index.js")).href);
    const fresh = i === 0 || perBuild;
    if (fresh) {
      scratches.push(await scratchDatabase(localBenchUrl(), "teammem_bench"));
      const setup = await openDatabase({ kind: "postgres", url: scratches.at(-1).url, poolSize: 1 });
      await setup.migrate();
      await setup.close();
      await adminQuery(scratches.at(-1).url, FLOOR_TABLE_SQL);
    }
    const database = await openDatabase({ kind: "postgres", url: scratches.at(-1).url, poolSize: Math.min(concurrency, 16) });
    if (fresh) ({ token } = await issueToken(database.db, secret, { teamName: "bench", userName: "bench", role: "member" }));
    const app = await buildApp({ db: database.db, jwtSecret: secret, limits: { rateLimitMax: 1_000_000_000 } });
    addFloorRoute(app, database.db.$client);
    const base = await app.listen({ host: "127.0.0.1", port: 0 });
    apps.push({ ...build, app, database, base, token, dbName: scratches.at(-1).name });
  }
  const runLoad = (a, kind, n) =>
    new Promise((resolve, reject) => {
      load.once("message", resolve);
      load.once("exit", (code) => reject(new Error(`load process exited (${code})`)));
      load.send({ base: a.base, token: a.token, concurrency, ops: n, kind });
    }).finally(() => load.removeAllListeners("exit"));
  for (const kind of kinds) for (const a of apps) await runLoad(a, kind, warmup);
  const cpu = new Map(); // `${kind}/${name}` -> µs per request, one per round
  const latency = new Map(); // `${kind}/${name}` -> the round's p50 latency (ms, the load process's clock)
  const backend = new Map(); // `${kind}/${name}` -> backend CPU µs of the rounds (sum), with --database-per-build
  const loads = [];
  for (let round = 0; round < rounds; round++) {
    loads.push(os.loadavg()[0]);
    // Alternate the order of the builds every round (ABBA), so neither always runs first.
    const order = round % 2 === 0 ? apps : [...apps].reverse();
    for (const kind of kinds) {
      for (const a of order) {
        const b0 = perBuild ? await backendCpu(a.dbName) : null;
        const t0 = process.cpuUsage();
        const { p50 } = await runLoad(a, kind, ops);
        const t = process.cpuUsage(t0);
        const key = `${kind}/${a.name}`;
        if (b0) {
          // A backend that ended during the round loses its share (the pools keep theirs: idle < 10 s).
          let spent = 0;
          for (const [pid, us] of await backendCpu(a.dbName)) spent += us - (b0.get(pid) ?? 0);
          backend.set(key, (backend.get(key) ?? 0) + spent);
        }
        cpu.set(key, [...(cpu.get(key) ?? []), (t.user + t.system) / ops]);
        latency.set(key, [...(latency.get(key) ?? []), p50]);
      }
    }
  }
  const pgVersion = (await adminQuery(scratches[0].url, "SHOW server_version")).rows[0].server_version;
  console.log(machineLine(pgVersion));
  console.log(`server CPU µs/request, ${ops} requests per round at concurrency ${concurrency}, ${rounds} rounds (load average at each round's start: ${loads.map((l) => l.toFixed(1)).join(" ")})`);
  const mean = (xs) => xs.reduce((p, q) => p + q, 0) / xs.length;
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  for (const kind of kinds) {
    const first = cpu.get(`${kind}/${apps[0].name}`);
    for (const a of apps) {
      const xs = cpu.get(`${kind}/${a.name}`);
      const ratios = xs.map((x, r) => x / first[r]).sort((p, q) => p - q);
      const q = (p) => ratios[Math.min(ratios.length - 1, Math.floor(p * ratios.length))].toFixed(3);
      console.log(
        `  ${kind.padEnd(6)} ${a.name.padEnd(10)} mean ${mean(xs).toFixed(0).padStart(5)}  median ${median(xs).toFixed(0).padStart(5)}  min ${Math.min(...xs).toFixed(0).padStart(5)}` +
          (a === apps[0] ? "" : `  | / ${apps[0].name}: mean ${(mean(xs) / mean(first)).toFixed(3)}, per round median ${q(0.5)} (quartiles ${q(0.25)}-${q(0.75)})`),
      );
    }
  }
  if (perBuild) {
    console.log(`PostgreSQL backend CPU µs/request (all rounds; ticks of 10 ms per backend)`);
    for (const kind of kinds) {
      const first = backend.get(`${kind}/${apps[0].name}`);
      for (const a of apps) {
        const us = backend.get(`${kind}/${a.name}`);
        console.log(`  ${kind.padEnd(6)} ${a.name.padEnd(10)} ${(us / (ops * rounds)).toFixed(0).padStart(5)}` + (a === apps[0] ? "" : `  | / ${apps[0].name}: ${(us / first).toFixed(3)}`));
      }
    }
  }
  console.log(`p50 latency ms per round (request sent to reply read, load process), median of the rounds; ratios per round to ${kinds.at(-1)} of the same build`);
  for (const a of apps) {
    const last = latency.get(`${kinds.at(-1)}/${a.name}`);
    for (const kind of kinds) {
      const xs = latency.get(`${kind}/${a.name}`);
      const ratios = xs.map((x, r) => x / last[r]);
      console.log(`  ${kind.padEnd(6)} ${a.name.padEnd(10)} p50 ${median(xs).toFixed(3).padStart(8)}` + (kind === kinds.at(-1) ? "" : `  | / ${kinds.at(-1)}: per round median ${median(ratios).toFixed(3)}`));
    }
  }
} finally {
  for (const a of apps) {
    await a.app.close();
    await a.database.close();
  }
  load.kill();
  for (const scratch of scratches) await scratch.drop();
}
