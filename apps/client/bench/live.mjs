// `npm run bench:live`: time from saving a file in client A's team/ to the same bytes on client
// B's disk, both running `teammem watch` (the built binary, as child processes) against one
// `teammem-server` (a child process too). See README.md here for the method and the results.
//
//   node apps/client/bench/live.mjs [--edits 100] [--files 10] [--gap-ms 50] [--extra-files 5000] [--pull-files 300]
//   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node apps/client/bench/live.mjs
//
// Without BENCH_DATABASE_URL the server uses its embedded database in a temporary folder. With
// it, a fresh database teammem_bench_live_<random> is created there and dropped at the end.
import { spawn } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, watch, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { scratchDatabase } from "../../../scripts/lib/bench.mjs";
import { CLIENT_CLI, SERVER_CLI, runCli, startServer } from "../../../scripts/lib/processes.mjs";

const { values: args } = parseArgs({
  options: {
    edits: { type: "string", default: "100" },
    files: { type: "string", default: "10" },
    "gap-ms": { type: "string", default: "50" },
    "timeout-ms": { type: "string", default: "15000" },
    "extra-files": { type: "string", default: "0" },
    "pull-files": { type: "string", default: "300" },
  },
});
const EDITS = Number(args.edits);
const FILES = Number(args.files);
const GAP_MS = Number(args["gap-ms"]);
const TIMEOUT_MS = Number(args["timeout-ms"]);
/** Files already in team/ (synced to both before the watches start), in folders of 100: a big memory folder. */
const EXTRA_FILES = Number(args["extra-files"]);
/** A teammate's one push of this many new files (one folder), after the edits: how long B's watch takes to write them, against `teammem sync` (try18 F16). */
const PULL_FILES = Number(args["pull-files"]);
const NAMESPACE = "bench-live";
const BASELINE_NAMESPACE = "bench-live-baseline";

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const root = mkdtempSync(join(tmpdir(), "teammem-bench-live-"));
const cleanups = [];

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function stats(samples) {
  const s = [...samples].sort((x, y) => x - y);
  return { n: s.length, p50: percentile(s, 50), p90: percentile(s, 90), p99: percentile(s, 99), max: s[s.length - 1] };
}

/** A fresh database on BENCH_DATABASE_URL's server, dropped at the end; or undefined for the embedded one. */
async function database() {
  const base = process.env.BENCH_DATABASE_URL;
  if (!base) return undefined;
  const scratch = await scratchDatabase(base, "teammem_bench_live");
  cleanups.push(scratch.drop);
  return scratch.url;
}

/** `teammem watch --json` on `dir`; resolves once it is subscribed to the change stream. */
async function startWatch(dir, token) {
  const child = spawn(process.execPath, [CLIENT_CLI, "watch", "--json", "--dir", dir], {
    env: { ...process.env, TEAMMEM_TOKEN: token },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.on("data", (b) => (out += b));
  child.stderr.on("data", (b) => (out += b));
  cleanups.push(async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGTERM");
    await exited;
  });
  const deadline = Date.now() + 60_000;
  while (!out.includes('"type":"connected"')) {
    if (out.includes("no change stream")) throw new Error("the server has no change stream: build the server with the stream route first");
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`teammem watch did not subscribe:\n${out}`);
    await sleep(50);
  }
  return { output: () => out };
}

/** Resolves when `path` holds `content` (inotify on its folder, plus a 20 ms poll as a safety net). */
function arrival(path, folder, content) {
  return new Promise((resolve, reject) => {
    const check = () => {
      try {
        if (readFileSync(path, "utf8") === content) {
          done();
          resolve(performance.now());
        }
      } catch {
        // not there yet
      }
    };
    const watcher = watch(folder, check);
    const poll = setInterval(check, 20);
    const timer = setTimeout(() => {
      done();
      reject(new Error(`${path} did not arrive within ${TIMEOUT_MS} ms`));
    }, TIMEOUT_MS);
    const done = () => {
      watcher.close();
      clearInterval(poll);
      clearTimeout(timer);
    };
    check();
  });
}

/** The bare round trip: one batch POST of the same content, then change-feed GETs until it is listed (what any client needs at least). */
async function bareRoundTrip(url, token, path, content, version, cursor) {
  const base = `${url}/v1/namespaces/${BASELINE_NAMESPACE}`;
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  const t0 = performance.now();
  const res = await fetch(`${base}/batch`, {
    method: "POST",
    headers,
    body: JSON.stringify({ operations: [{ opId: randomUUID(), path, baseVersion: version, content }] }),
  });
  if (!res.ok) throw new Error(`baseline batch: ${res.status} ${await res.text()}`);
  for (;;) {
    const page = await (await fetch(`${base}/changes?since=${cursor}&limit=100`, { headers })).json();
    const hit = page.changes.find((c) => c.path === path && c.content === content);
    if (hit) return { ms: performance.now() - t0, cursor: page.nextCursor, version: hit.version };
  }
}

async function main() {
  const databaseUrl = await database();
  const dataDir = databaseUrl ? undefined : join(root, "server-data");
  const serverArgs = databaseUrl ? [] : ["--data-dir", dataDir];
  const serverEnv = databaseUrl ? { DATABASE_URL: databaseUrl } : {};
  if (databaseUrl) runCli(SERVER_CLI, ["migrate"], { env: serverEnv });
  // Team and tokens first: the embedded database admits one process at a time.
  runCli(SERVER_CLI, ["team", "create", "bench", ...serverArgs], { env: serverEnv });
  const token = (user) => /(eyJ[\w.-]+)/.exec(runCli(SERVER_CLI, ["token", "create", ...serverArgs, "--team", "bench", "--user", user, "--role", "member"], { env: serverEnv }).stdout)[1];
  const [tokenA, tokenB, tokenBase, tokenC, tokenD] = [token("alice"), token("bob"), token("carol"), token("dave"), token("erin")];
  const server = await startServer(databaseUrl ? { databaseUrl } : { dataDir });
  cleanups.push(() => server.stop());
  const [a, b] = [join(root, "a"), join(root, "b")];
  runCli(CLIENT_CLI, ["init", "--dir", a, "--server", server.url, "--namespace", NAMESPACE, "--token", tokenA]);
  runCli(CLIENT_CLI, ["init", "--dir", b, "--server", server.url, "--namespace", NAMESPACE, "--token", tokenB]);
  await fetch(`${server.url}/v1/namespaces/${BASELINE_NAMESPACE}`, { method: "PUT", headers: { authorization: `Bearer ${tokenBase}` } });
  if (EXTRA_FILES > 0) {
    for (let i = 0; i < EXTRA_FILES; i++) {
      const dir = join(a, "team", "archive", `part-${Math.floor(i / 100)}`);
      if (i % 100 === 0) mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `note-${i}.md`), `# Note ${i}\n\n- kept for the record\n`);
    }
    runCli(CLIENT_CLI, ["sync", "--dir", a], { env: { TEAMMEM_TOKEN: tokenA } });
    runCli(CLIENT_CLI, ["sync", "--dir", b], { env: { TEAMMEM_TOKEN: tokenB } });
  }
  const startedAt = performance.now();

  const [watchA, watchB] = [await startWatch(a, tokenA), await startWatch(b, tokenB)];
  const startMs = performance.now() - startedAt;
  const live = [];
  const bare = [];
  const versions = new Map();
  let cursor = 0;
  const warmup = 5;
  for (let i = -warmup; i < EDITS; i++) {
    const name = `topic-${((i % FILES) + FILES) % FILES}.md`;
    const content = `# Topic\n\n- note ${i} ${randomBytes(6).toString("hex")}: the build needs node 20\n`;
    const arrived = arrival(join(b, "team", name), join(b, "team"), content);
    const t0 = performance.now();
    writeFileSync(join(a, "team", name), content);
    const t1 = await arrived.catch((err) => {
      throw new Error(`${err.message}\n--- A's watch:\n${watchA.output().slice(-3000)}\n--- B's watch:\n${watchB.output().slice(-3000)}`);
    });
    const round = await bareRoundTrip(server.url, tokenBase, name, content, versions.get(name) ?? 0, cursor);
    versions.set(name, round.version);
    cursor = round.cursor;
    if (i >= 0) {
      live.push(t1 - t0);
      bare.push(round.ms);
    }
    await sleep(GAP_MS);
  }
  const w = stats(live);
  const r = stats(bare);
  const fmt = (x) => x.toFixed(0).padStart(6);
  console.log(`machine: ${process.platform} ${process.arch}, Node ${process.version}, database: ${databaseUrl ? "PostgreSQL" : "embedded (PGlite)"}`);
  console.log(`${EDITS} edits over ${FILES} files (${warmup} warm-up edits not counted), ${GAP_MS} ms between edits; debounce 100 ms quiet / 1 s max`);
  console.log(`team/ holds ${EXTRA_FILES + FILES} files; both watches started and subscribed in ${startMs.toFixed(0)} ms`);
  console.log("");
  console.log("                                         n    p50    p90    p99    max   (ms)");
  console.log(`save on A -> bytes on B (both watching) ${String(w.n).padStart(3)} ${fmt(w.p50)} ${fmt(w.p90)} ${fmt(w.p99)} ${fmt(w.max)}`);
  console.log(`bare HTTP: POST batch + GET changes     ${String(r.n).padStart(3)} ${fmt(r.p50)} ${fmt(r.p90)} ${fmt(r.p99)} ${fmt(r.max)}`);
  console.log("");
  console.log(`ratio watch/bare: p50 ${(w.p50 / r.p50).toFixed(1)}x, p99 ${(w.p99 / r.p99).toFixed(1)}x`);
  console.log(`goal p99 < 1000 ms: ${w.p99 < 1000 ? "met" : "NOT met"} (p99 ${w.p99.toFixed(0)} ms)`);
  if (PULL_FILES > 0) {
    // A teammate (C, no watch) pushes PULL_FILES new files with one `teammem sync`; B's watch writes
    // them as the stream delivers them. Then D pulls the same files with `teammem sync` (a process).
    const [c, d] = [join(root, "c"), join(root, "d")];
    runCli(CLIENT_CLI, ["init", "--dir", c, "--server", server.url, "--namespace", NAMESPACE, "--token", tokenC]);
    runCli(CLIENT_CLI, ["init", "--dir", d, "--server", server.url, "--namespace", NAMESPACE, "--token", tokenD]);
    runCli(CLIENT_CLI, ["sync", "--dir", d]); // D holds the edits' files already: its next sync pulls only the push
    const bulk = (root_) => join(root_, "team", "bulk");
    mkdirSync(bulk(c), { recursive: true });
    const body = (i) => `# Bulk ${i}\n\n- what the team learned, part ${i}\n`;
    for (let i = 0; i < PULL_FILES; i++) writeFileSync(join(bulk(c), `note-${i}.md`), body(i));
    const t0 = performance.now();
    runCli(CLIENT_CLI, ["sync", "--dir", c]);
    const pushed = performance.now();
    const all = () => {
      try {
        return readdirSync(bulk(b)).filter((n) => n.endsWith(".md")).length === PULL_FILES && Array.from({ length: PULL_FILES }, (_, i) => readFileSync(join(bulk(b), `note-${i}.md`), "utf8") === body(i)).every(Boolean);
      } catch {
        return false;
      }
    };
    const deadline = pushed + 120_000;
    while (!all()) {
      if (performance.now() > deadline) throw new Error(`B's watch did not write the ${PULL_FILES} files within 120 s\n--- B's watch:\n${watchB.output().slice(-3000)}`);
      await sleep(20);
    }
    const onB = performance.now();
    const t2 = performance.now();
    runCli(CLIENT_CLI, ["sync", "--dir", d]);
    const bySync = performance.now() - t2;
    console.log("");
    console.log(`a teammate's push of ${PULL_FILES} new files (one teammem sync, ${(pushed - t0).toFixed(0)} ms):`);
    console.log(`  all on B's disk (watching), from the push's end: ${(onB - pushed).toFixed(0).padStart(6)} ms (from its start: ${(onB - t0).toFixed(0)} ms)`);
    console.log(`  teammem sync on D pulling the same files:       ${bySync.toFixed(0).padStart(6)} ms (a process: start included)`);
  }
  const errors = [watchA, watchB].map((x) => x.output()).join("").split("\n").filter((l) => /"type":"(disconnected|warning|stopped)"/.test(l));
  if (errors.length) console.log(`\nwatch log lines of note:\n${errors.slice(0, 10).join("\n")}`);
}

try {
  await main();
} finally {
  for (const c of cleanups.reverse()) await c().catch((e) => console.error(`cleanup: ${e.message}`));
  rmSync(root, { recursive: true, force: true });
}
