// Drives the built CLIs as a user would: `teammem-server` and `teammem` as child processes.
// Shared by the demo (scripts/demo.mjs) and the end-to-end tests (test/e2e). Needs `tsc -b` first.
import { spawn, spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));
export const SERVER_CLI = join(root, "apps/server/dist/cli.js");
export const CLIENT_CLI = join(root, "apps/client/dist/cli.js");

/**
 * Runs `cli` with `args` to completion.
 * @param {string} cli path of a built CLI entry
 * @param {string[]} args
 * @param {{ env?: Record<string, string>, allow?: (number | null)[] }} [options]
 * @returns {{ status: number | null, stdout: string, stderr: string }}
 * @throws Error naming the command and quoting its stderr when the exit code is not in `allow`.
 */
export function runCli(cli, args, { env = {}, allow = [0] } = {}) {
  const r = spawnSync(process.execPath, [cli, ...args], { encoding: "utf8", env: { ...process.env, ...env } });
  if (!allow.includes(r.status)) {
    throw new Error(`${cli.split("/").slice(-3).join("/")} ${args.join(" ")} exited ${r.status}\n${r.stderr}${r.stdout}`);
  }
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/**
 * Starts `teammem-server start --port 0` (the OS picks a free port; the server prints the URL it
 * bound): embedded database in `dataDir`, or PostgreSQL when `databaseUrl` is given. Resolves once
 * the server printed its URL and /healthz answers.
 * @param {{ dataDir?: string, databaseUrl?: string, timeoutMs?: number }} options
 * @returns {Promise<{ url: string, output: () => string, stop: () => Promise<void> }>}
 * @throws Error quoting the server's output when it exits or does not answer within `timeoutMs`.
 */
export async function startServer({ dataDir, databaseUrl, timeoutMs = 60_000 }) {
  const env = { ...process.env };
  if (databaseUrl) env.DATABASE_URL = databaseUrl;
  else delete env.DATABASE_URL;
  delete env.PORT;
  const args = [SERVER_CLI, "start", "--host", "127.0.0.1", "--port", "0", ...(dataDir ? ["--data-dir", dataDir] : [])];
  const child = spawn(process.execPath, args, { env, stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  child.stdout.on("data", (b) => (log += b));
  child.stderr.on("data", (b) => (log += b));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGTERM");
    await exited;
  };
  const deadline = Date.now() + timeoutMs;
  let url = null;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`teammem-server exited with ${child.exitCode}\n${log}`);
    url ??= /listening on (http:\/\/\S+)/.exec(log)?.[1] ?? null;
    try {
      if (url && (await fetch(`${url}/healthz`)).ok) break;
    } catch {
      /* not answering yet */
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`teammem-server did not print its URL and answer /healthz within ${timeoutMs} ms\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url, output: () => log, stop };
}

/**
 * Every regular file under `dir` as relative POSIX path -> Buffer (symlinks are not followed).
 * @param {string} dir
 * @returns {Map<string, Buffer>}
 */
export function readTree(dir) {
  const out = new Map();
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) out.set(relative(dir, p).split("\\").join("/"), readFileSync(p));
    }
  };
  walk(dir);
  return out;
}
