/**
 * `npx teammem-server start` stopped with SIGTERM to npm (issue 12): npm forwards it only to the
 * `sh -c` between npm and the server, which dies of it. Here the shell is started by the test as
 * npm starts it (`npm_lifecycle_event` set, the server a child of `sh -c`): once the shell is
 * gone the server shuts down as for SIGTERM and exits. Without `npm_lifecycle_event` (a supervisor,
 * `node dist/cli.js start &`), a reparented server keeps running, as before. Built CLI (`npx tsc -b`
 * first), real PostgreSQL.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, inject, it, onTestFinished } from "vitest";
import { createPostgresDatabase } from "../../src/testing.js";

const CLI = fileURLToPath(new URL("../../dist/cli.js", import.meta.url));

function cleanEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !/^(DATABASE_URL|JWT_SECRET|HOST|PORT|LOG_LEVEL|TEAMMEM_.*|npm_.*)$/.test(k)) env[k] = v;
  }
  return { ...env, ...extra };
}

/** Whether `pid` runs: an exited orphan may stay a zombie (state Z) until its new parent reaps it. */
const alive = (pid: number) => {
  try {
    return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
};

/**
 * Whether `pid` has exited within `withinMs`: its pipes close while it exits, a moment before it
 * is gone (or a zombie), which a loaded machine can stretch (the CI check caught it still running).
 */
async function exitedWithin(pid: number, withinMs = 10_000): Promise<boolean> {
  for (const deadline = Date.now() + withinMs; alive(pid); ) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}

/**
 * `sh -c 'node cli.js start --port 0; exit $?'` (the trailing command keeps the shell waiting for
 * the server, as npm's shell does); resolves once the server listens, with its pid (from its log).
 */
async function startUnderShell(env: Record<string, string>) {
  const shell = spawn("sh", ["-c", '"$0" "$1" start --port 0; exit $?', process.execPath, CLI], { env: cleanEnv({ LOG_LEVEL: "info", ...env }), stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  shell.stdout.on("data", (b) => (stdout += b));
  shell.stderr.on("data", (b) => (stderr += b));
  // The pipes close when the last holder, the server, exits (the shell may be gone long before).
  const serverGone = Promise.all([once(shell.stdout, "close"), once(shell.stderr, "close")]);
  let pid = 0;
  onTestFinished(async () => {
    if (pid && alive(pid)) process.kill(pid, "SIGTERM");
    await serverGone;
  });
  for (const deadline = Date.now() + 60_000; !/listening on http/.test(stdout) || !/"pid":(\d+)/.test(stderr); ) {
    if (Date.now() > deadline || shell.exitCode !== null) throw new Error(`no server\n${stdout}${stderr}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  pid = Number(/"pid":(\d+)/.exec(stderr)![1]);
  return { shell, pid, serverGone, stderr: () => stderr };
}

describe.skipIf(process.platform !== "linux")("the shell npm starts the server under is killed", () => {
  it("under npm (npm_lifecycle_event set), the server stops gracefully once the shell is gone", async () => {
    const db = await createPostgresDatabase(inject("postgresUrl"));
    onTestFinished(() => db.drop());
    const server = await startUnderShell({ DATABASE_URL: db.url, npm_lifecycle_event: "npx" });
    server.shell.kill("SIGTERM");
    await once(server.shell, "exit");
    await server.serverGone;
    expect(await exitedWithin(server.pid)).toBe(true);
    const lines = server.stderr().split("\n").filter((l) => l.startsWith("teammem-server:"));
    expect(lines).toEqual([
      "teammem-server: the process npm started this server under is gone (npm stopped?); stopping as for SIGTERM",
      "teammem-server: shutting down (in-flight requests get up to 10000 ms)",
      "teammem-server: stopped",
    ]);
  }, 60_000);

  it("not under npm, a server whose parent is gone keeps running (a supervisor's or `&`'s business)", async () => {
    const db = await createPostgresDatabase(inject("postgresUrl"));
    onTestFinished(() => db.drop());
    const server = await startUnderShell({ DATABASE_URL: db.url });
    server.shell.kill("SIGTERM");
    await once(server.shell, "exit");
    await new Promise((r) => setTimeout(r, 1500)); // three times the watch's interval
    expect(alive(server.pid)).toBe(true);
    process.kill(server.pid, "SIGTERM");
    await server.serverGone;
    expect(await exitedWithin(server.pid)).toBe(true);
  }, 60_000);
});
