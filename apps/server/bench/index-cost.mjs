#!/usr/bin/env node
// What each index of `entries` and `versions` costs a write on PostgreSQL (issue 12), measured
// apart from everything else: copies of the two tables with different index sets, in a scratch
// database, take the same 100-row statement in turn (a head update of every row: never HOT, since
// `cursor` is indexed; a 100-row version insert), alternating the order every round (ABBA), with
// the backend's CPU read from /proc/<pid>/stat (clock ticks: only sums over many statements mean
// anything). Linux, PostgreSQL on this host.
//   node apps/server/bench/index-cost.mjs [--statements 100] [--rounds 10]
// Sets: entries as before migration 0015 (4 indexes) and after (3); versions as now (id primary
// key, (namespace, path, version) unique, (namespace, cursor) unique, purged partial), without the
// cursor index, and with (namespace, path, version) as primary key and no id.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import pg from "pg";
import { localBenchUrl, machineLine, scratchDatabase } from "../../../scripts/lib/bench.mjs";

const { values } = parseArgs({ options: { statements: { type: "string" }, rounds: { type: "string" } } });
const N = Number(values.statements ?? 100);
const ROUNDS = Number(values.rounds ?? 10);

const ENTRY = `namespace_id uuid not null, path text not null, fold_key text not null, version int not null, deleted bool not null default false,
  content text, sha256 text, size_bytes int not null default 0, cursor bigint not null, updated_at timestamptz not null default now(), primary key (namespace_id, path)`;
const VERSION = `namespace_id uuid not null, path text not null, version int not null, kind text not null, deleted bool not null default false, content text,
  sha256 text, size_bytes int not null default 0, parent_version int, base_version int, author_id uuid, author_name text not null, client_id text, op_id text,
  cursor bigint not null, created_at timestamptz not null default now(), purged_by text, purged_at timestamptz, purge_reason text`;
const SETS = {
  entries: {
    e_before_0015: [
      `create table e_before_0015 (${ENTRY})`,
      `create index on e_before_0015 (namespace_id, cursor)`,
      `create unique index on e_before_0015 (namespace_id, fold_key) where not deleted`,
      `create index on e_before_0015 (namespace_id, fold_key text_pattern_ops) where not deleted`,
    ],
    e_0015: [`create table e_0015 (${ENTRY})`, `create index on e_0015 (namespace_id, cursor)`, `create unique index on e_0015 (namespace_id, fold_key text_pattern_ops) where not deleted`],
  },
  versions: {
    v_now: [
      `create table v_now (id bigserial primary key, ${VERSION})`,
      `create unique index on v_now (namespace_id, path, version)`,
      `create unique index on v_now (namespace_id, cursor)`,
      `create index on v_now (namespace_id, path) where purged_at is not null`,
    ],
    v_no_cursor_index: [
      `create table v_no_cursor_index (id bigserial primary key, ${VERSION})`,
      `create unique index on v_no_cursor_index (namespace_id, path, version)`,
      `create index on v_no_cursor_index (namespace_id, path) where purged_at is not null`,
    ],
    v_no_id: [
      `create table v_no_id (${VERSION}, primary key (namespace_id, path, version))`,
      `create unique index on v_no_id (namespace_id, cursor)`,
      `create index on v_no_id (namespace_id, path) where purged_at is not null`,
    ],
  },
};
const NS = "00000000-0000-0000-0000-000000000001";
const PARAGRAPH = "## Build\n\nRun `npm run build` before `npm test`; the CI uses Node 20 and PostgreSQL 15.\n".repeat(12);

const scratch = await scratchDatabase(localBenchUrl(), "teammem_bench");
const client = new pg.Client({ connectionString: scratch.url });
try {
  await client.connect();
  const pid = (await client.query("SELECT pg_backend_pid() AS pid")).rows[0].pid;
  const cpuMs = () => {
    const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return (Number(f[11]) + Number(f[12])) * (1000 / 100); // utime + stime, USER_HZ = 100
  };
  const counter = { n: 0 };
  const statement = {
    entries: (t) => {
      counter.n += 100;
      return client.query(
        `UPDATE ${t} SET version = version + 1, cursor = $2 + (cursor % 100), content = $3, sha256 = md5($2::text || path), updated_at = now() WHERE namespace_id = $1`,
        [NS, counter.n, PARAGRAPH + counter.n],
      );
    },
    versions: (t) => {
      counter.n += 1;
      return client.query(
        `INSERT INTO ${t} (namespace_id, path, version, kind, content, sha256, size_bytes, parent_version, author_name, op_id, cursor)
         SELECT $1, 'bench/b' || k || '.md', $2::int, 'write', $3, md5($2::text || k), 1000, $2::int - 1, 'bench', gen_random_uuid()::text, $2::int * 100 + k
         FROM generate_series(1, 100) k`,
        [NS, counter.n, PARAGRAPH + counter.n],
      );
    },
  };
  const { rows } = await client.query("SHOW server_version");
  console.log(machineLine(rows[0].server_version));
  for (const [table, sets] of Object.entries(SETS)) {
    const names = Object.keys(sets);
    for (const name of names) for (const sql of sets[name]) await client.query(sql);
    if (table === "entries") {
      for (const name of names) {
        await client.query(
          `INSERT INTO ${name} (namespace_id, path, fold_key, version, content, sha256, size_bytes, cursor)
           SELECT $1, 'bench/b' || k || '.md', 'bench/b' || k || '.md', 1, $2, md5(k::text), 1000, k FROM generate_series(1, 100) k`,
          [NS, PARAGRAPH],
        );
      }
    }
    const perRound = Object.fromEntries(names.map((n) => [n, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const name of round % 2 === 0 ? names : [...names].reverse()) {
        if (table === "entries") await client.query(`VACUUM ${name}`); // as many dead tuples each time (autovacuum may be off)
        const t0 = cpuMs();
        for (let i = 0; i < N; i++) await statement[table](name);
        perRound[name].push((cpuMs() - t0) / N);
      }
    }
    console.log(`${table}: backend CPU ms per 100-row ${table === "entries" ? "head update" : "version insert"}, ${N} statements per round, ${ROUNDS} rounds`);
    const first = perRound[names[0]];
    for (const name of names) {
      const xs = perRound[name];
      const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
      const lower = xs.filter((x, r) => x < first[r]).length;
      console.log(`  ${name.padEnd(20)} mean ${mean.toFixed(2)}  rounds ${xs.map((x) => x.toFixed(2)).join(" ")}` + (name === names[0] ? "" : `  (below ${names[0]} in ${lower} of ${ROUNDS} rounds)`));
    }
  }
} finally {
  await client.end().catch(() => {});
  await scratch.drop();
}
