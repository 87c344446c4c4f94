// Shared by the benchmarks (apps/server/bench, apps/client/bench): the scratch PostgreSQL database a
// run creates and drops, the machine line a result starts with, and percentiles of latencies.
import { randomBytes } from "node:crypto";
import os from "node:os";
import pg from "pg";

/**
 * The PostgreSQL server a bench creates its database on: BENCH_DATABASE_URL, default
 * postgres://postgres@127.0.0.1:5432/postgres.
 * @returns {string}
 * @throws Error when it does not point at localhost (a bench creates and drops databases there).
 */
export function localBenchUrl() {
  const url = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  if (!/^postgres(ql)?:\/\/[^/]*(127\.0\.0\.1|localhost|\[::1\])[:/]/.test(url)) throw new Error(`BENCH_DATABASE_URL must point at localhost: ${url}`);
  return url;
}

/**
 * Runs one SQL statement on a connection of its own to `url`.
 * @param {string} url a PostgreSQL connection URL
 * @param {string} sql
 * @returns {Promise<import("pg").QueryResult>}
 * @throws whatever pg throws (connection refused, SQL error); the connection is closed either way.
 */
export async function adminQuery(url, sql) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * Creates the database `<prefix>_<10 hex digits>` on the server of `serverUrl`.
 * @param {string} serverUrl a PostgreSQL connection URL (any database on that server)
 * @param {string} prefix
 * @returns {Promise<{ name: string, url: string, drop: () => Promise<void> }>} `url`: `serverUrl`
 *   with the new database; `drop()`: DROP DATABASE IF EXISTS ... WITH (FORCE), through `serverUrl`.
 */
export async function scratchDatabase(serverUrl, prefix) {
  const name = `${prefix}_${randomBytes(5).toString("hex")}`;
  await adminQuery(serverUrl, `CREATE DATABASE ${name}`);
  const url = Object.assign(new URL(serverUrl), { pathname: `/${name}` }).toString();
  return { name, url, drop: async () => void (await adminQuery(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)) };
}

/**
 * The machine a result was measured on: cores, CPU model, Node, PostgreSQL, load average (1, 5,
 * 15 minutes), e.g. "machine: 2 cores (AMD EPYC), Node v20.20.2, PostgreSQL 16.4, load average 0.31 0.40 0.52".
 * @param {string} pgVersion the server's `SHOW server_version`
 * @returns {string}
 */
export function machineLine(pgVersion) {
  return `machine: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? "?"}), Node ${process.version}, PostgreSQL ${pgVersion}, load average ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`;
}

/**
 * The `p`th percentile of `sorted` (ascending): the element at floor(p / 100 x length), the last
 * one at most; undefined when `sorted` is empty.
 * @param {ArrayLike<number>} sorted
 * @param {number} p 0 to 100
 * @returns {number | undefined}
 */
export function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
