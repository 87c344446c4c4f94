// `npm run bench:client`: what a sync costs as the namespace grows (issue 8, issue 12 "Load and
// cost"). For 1,000 and 10,000 generated entries, on the embedded database and on PostgreSQL:
//   - cold push: `teammem sync` of a folder holding N new files (empty namespace);
//   - cold pull: `teammem sync` of a second, empty folder on the same namespace;
//   - no-change re-sync: `teammem sync` again in the first folder (nothing changed anywhere);
//   - replay of 1,000 queued operations: 1,000 files edited while the server was unreachable
//     (`teammem sync` queued them in the outbox), then `teammem sync` sends the outbox.
// Prints seconds per step and the ratio 10k/1k (goal: about 10x for the cold syncs, about 1x for
// the replay of the same 1,000 operations, and the no-change re-sync of 10k under 2 s).
// See README.md here for the method and the results.
//
//   node apps/client/bench/client.mjs [--sizes 1000,10000] [--replay 1000] [--databases embedded,postgres]
//   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres (default) is where PostgreSQL
//   databases teammem_bench_client_<random> are created, and dropped at the end.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { localBenchUrl, scratchDatabase } from "../../../scripts/lib/bench.mjs";
import { CLIENT_CLI, SERVER_CLI, runCli, startServer } from "../../../scripts/lib/processes.mjs";

const { values: args } = parseArgs({
  options: {
    sizes: { type: "string", default: "1000,10000" },
    replay: { type: "string", default: "1000" },
    databases: { type: "string", default: "embedded,postgres" },
  },
});
const SIZES = args.sizes.split(",").map(Number);
const REPLAY = Number(args.replay);
const DATABASES = args.databases.split(",");

const root = mkdtempSync(join(tmpdir(), "teammem-bench-client-"));
const cleanups = [];

/** Seconds `teammem sync` takes in `dir` (the built binary, as a user runs it). */
function timedSync(dir, token, allow = [0]) {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [CLIENT_CLI, "sync", "--dir", dir], { encoding: "utf8", env: { ...process.env, TEAMMEM_TOKEN: token } });
  const seconds = (performance.now() - t0) / 1000;
  if (!allow.includes(r.status)) throw new Error(`teammem sync --dir ${dir} exited ${r.status}\n${r.stderr}${r.stdout}`);
  return seconds;
}

/** N generated memory files under `dir/team/`, in folders of 100, each a few lines. */
function writeEntries(dir, n, edit = "") {
  for (let i = 0; i < n; i++) {
    const folder = join(dir, "team", "notes", `part-${Math.floor(i / 100)}`);
    if (i % 100 === 0) mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, `note-${i}.md`), `# Note ${i}\n\n- the build needs node 20\n- run the tests with npm test\n${edit}`);
  }
}

/** A fresh PostgreSQL database on the bench server (scripts/lib/bench.mjs), dropped at the end. */
async function postgresDatabase() {
  const db = await scratchDatabase(localBenchUrl(), "teammem_bench_client");
  cleanups.push(db.drop);
  return db.url;
}

/** One server (embedded or PostgreSQL) and the steps for every size. */
async function benchDatabase(kind) {
  const databaseUrl = kind === "postgres" ? await postgresDatabase() : undefined;
  const dataDir = databaseUrl ? undefined : join(root, `server-${kind}`);
  const serverArgs = databaseUrl ? [] : ["--data-dir", dataDir];
  const serverEnv = { TEAMMEM_RATE_LIMIT_MAX: "0", TEAMMEM_MAX_ENTRIES_PER_NAMESPACE: String(Math.max(...SIZES) * 2), ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) };
  if (databaseUrl) runCli(SERVER_CLI, ["migrate"], { env: serverEnv });
  runCli(SERVER_CLI, ["team", "create", "bench", ...serverArgs], { env: serverEnv });
  const token = (user) => /(eyJ[\w.-]+)/.exec(runCli(SERVER_CLI, ["token", "create", ...serverArgs, "--team", "bench", "--user", user, "--role", "member"], { env: serverEnv }).stdout)[1];
  const [tokenA, tokenB] = [token("alice"), token("bob")];
  const saved = { ...process.env };
  Object.assign(process.env, serverEnv);
  const server = await startServer(databaseUrl ? { databaseUrl } : { dataDir });
  process.env = saved;
  try {
    const rows = {};
    for (const n of SIZES) {
      const ns = `bench-${kind}-${n}`;
      const [a, b] = [join(root, `${kind}-${n}-a`), join(root, `${kind}-${n}-b`)];
      runCli(CLIENT_CLI, ["init", "--dir", a, "--server", server.url, "--namespace", ns, "--token", tokenA]);
      runCli(CLIENT_CLI, ["init", "--dir", b, "--server", server.url, "--namespace", ns, "--token", tokenB]);
      writeEntries(a, n);
      const push = timedSync(a, tokenA);
      const pull = timedSync(b, tokenB);
      const resync = timedSync(a, tokenA);
      // Queue REPLAY edits while the server is unreachable (the config points at a closed port).
      const configFile = join(a, ".teammem", "config.json");
      const config = readFileSync(configFile, "utf8");
      writeFileSync(configFile, config.replace(server.url, "http://127.0.0.1:9"));
      writeEntries(a, Math.min(REPLAY, n), "- edited offline\n");
      timedSync(a, tokenA, [0, 1, 2, 3, 4, 5, 6, 7, 8]);
      const queued = spawnSync("ls", [join(a, ".teammem", "outbox")], { encoding: "utf8" }).stdout.split("\n").filter((f) => f.endsWith(".json")).length;
      if (queued !== Math.min(REPLAY, n)) throw new Error(`expected ${Math.min(REPLAY, n)} queued operations, found ${queued}`);
      writeFileSync(configFile, config);
      const replay = timedSync(a, tokenA);
      rows[n] = { push, pull, resync, replay };
      rmSync(a, { recursive: true, force: true });
      rmSync(b, { recursive: true, force: true });
    }
    return rows;
  } finally {
    await server.stop();
  }
}

async function main() {
  console.log(`machine: ${process.platform} ${process.arch}, Node ${process.version}; load average at start ${loadavg().map((l) => l.toFixed(1)).join(" ")}`);
  const [small, big] = [Math.min(...SIZES), Math.max(...SIZES)];
  for (const kind of DATABASES) {
    const rows = await benchDatabase(kind);
    console.log("");
    console.log(`${kind === "postgres" ? "PostgreSQL" : "embedded database (PGlite)"}: seconds per teammem sync`);
    const steps = [
      ["cold push (N new files)", "push"],
      ["cold pull (empty folder)", "pull"],
      ["no-change re-sync", "resync"],
      [`replay of ${REPLAY} queued ops`, "replay"],
    ];
    console.log(`${"".padEnd(34)}${SIZES.map((n) => `N=${n}`.padStart(10)).join("")}   ratio ${big}/${small}`);
    for (const [label, key] of steps) {
      const cells = SIZES.map((n) => rows[n][key].toFixed(2).padStart(10)).join("");
      console.log(`${label.padEnd(34)}${cells}   ${(rows[big][key] / rows[small][key]).toFixed(1).padStart(8)}x`);
    }
  }
  console.log(`\nload average at end ${loadavg().map((l) => l.toFixed(1)).join(" ")}`);
}

try {
  await main();
} finally {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
  rmSync(root, { recursive: true, force: true });
}
