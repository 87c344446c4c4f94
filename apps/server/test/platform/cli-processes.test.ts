/**
 * `teammem-server` as real processes of the built bin (`npx tsc -b` first; `npm test` does): the
 * bin itself, signals, and the embedded data folder's lock between processes.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { hostname } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { seedPgliteDataDir } from "../../src/testing.js";
import { firstAdminToken, members, tempDir } from "./cli-harness.js";

const BIN = fileURLToPath(new URL("../../bin/teammem-server.js", import.meta.url));
const BUILT = fileURLToPath(new URL("../../dist/cli.js", import.meta.url));

/** The host's environment without the variables the CLI reads, so its settings don't leak in. */
function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !/^(DATABASE_URL|JWT_SECRET|HOST|PORT|LOG_LEVEL|TEAMMEM_.*)$/.test(k)) env[k] = v;
  }
  return { ...env, ...extra };
}

function runBin(args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8", env: cleanEnv(), timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function runBinAsync(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: cleanEnv() });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (b) => (stdout += b));
    child.stderr.on("data", (b) => (stderr += b));
    child.on("exit", (status) => resolve({ status, stdout, stderr }));
  });
}

interface Started {
  child: ChildProcess;
  url: string;
  stdout: () => string;
  stderr: () => string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts `teammem-server start --port 0 <args>` as a process and resolves once it printed its URL. */
async function startBin(args: string[], env: Record<string, string> = {}): Promise<Started> {
  const child = spawn(process.execPath, [BIN, "start", "--port", "0", ...args], { env: cleanEnv(env), stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let errOut = "";
  child.stdout!.on("data", (b) => (out += b));
  child.stderr!.on("data", (b) => (errOut += b));
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  const stop = async (signal: NodeJS.Signals = "SIGTERM") => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    return exited;
  };
  onTestFinished(() => void stop());
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL within 60 s\n${out}${errOut}`)), 60_000);
    child.stdout!.on("data", () => {
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited ${code}\n${out}${errOut}`));
    });
  });
  return { child, url, stdout: () => out, stderr: () => errOut, stop };
}

beforeAll(() => {
  if (!existsSync(BUILT)) throw new Error(`${BUILT} is missing: run \`npx tsc -b\` first (npm test does)`);
});

describe("the teammem-server bin", () => {
  it("serves until SIGINT, then shuts down with exit 0 and releases the data folder", { timeout: 120_000 }, async () => {
    const dataDir = join(await tempDir(), "data");
    const server = await startBin(["--data-dir", dataDir]);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect(existsSync(join(dataDir, "teammem-server.lock"))).toBe(true);
    expect(await server.stop("SIGINT")).toBe(0);
    expect(server.stderr()).toContain("teammem-server: shutting down");
    expect(existsSync(join(dataDir, "teammem-server.lock"))).toBe(false);
    expect(existsSync(join(dataDir, "teammem-server.lock.json"))).toBe(false);
  });

  it("answers a request that never finishes arriving with 408 request_timeout after TEAMMEM_REQUEST_TIMEOUT_MS and closes it", { timeout: 120_000 }, async () => {
    const dataDir = join(await tempDir(), "data");
    await seedPgliteDataDir(dataDir);
    const server = await startBin(["--data-dir", dataDir], { TEAMMEM_REQUEST_TIMEOUT_MS: "1500" });
    const { port } = new URL(server.url);
    const started = Date.now();
    const reply = await new Promise<string>((resolve, reject) => {
      // Headers sent a line at a time and never finished: held forever without the timeout
      // (Fastify's default requestTimeout is 0). Node checks open requests every 30 s.
      const socket = connect(Number(port), "127.0.0.1", () => socket.write("POST /v1/namespaces/acme%2Fweb/batch HTTP/1.1\r\nHost: x\r\n"));
      const drip = setInterval(() => socket.write("X-Slow: 1\r\n"), 500);
      let got = "";
      socket.on("data", (b) => (got += b));
      socket.on("close", () => (clearInterval(drip), resolve(got)));
      socket.on("error", (err) => (clearInterval(drip), reject(err)));
      setTimeout(() => reject(new Error(`no close within 60 s: ${got.slice(0, 300)}`)), 60_000).unref();
    });
    expect(reply).toMatch(/^HTTP\/1\.1 408 /);
    expect(reply).toContain('"code":"request_timeout"');
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(await server.stop()).toBe(0);
  });

  it("prints its usage errors to stderr with exit 2", () => {
    const r = runBin(["token", "revoke", "42"]);
    expect(r).toMatchObject({ status: 2, stdout: "" });
    expect(r.stderr).toMatch(/a token id is a UUID/);
  });
});

describe("the embedded data folder between processes", () => {
  it("refuses admin commands and a second server while a server process holds it: exit 3 with the holder's pid, URL and the admin API to use", { timeout: 180_000 }, async () => {
    const dataDir = join(await tempDir(), "data");
    await seedPgliteDataDir(dataDir); // migrated already: the subject is the lock, not initdb
    const server = await startBin(["--data-dir", dataDir]);
    const holder = JSON.parse(readFileSync(join(dataDir, "teammem-server.lock.json"), "utf8"));
    expect(holder).toEqual({ pid: server.child.pid, host: hostname(), purpose: "server", url: server.url, startedAt: expect.any(String) });
    const create = runBin(["token", "create", "--team", "default", "--user", "bob", "--role", "member", "--data-dir", dataDir]);
    expect(create.status).toBe(3);
    expect(create.stdout).toBe("");
    expect(create.stderr).toContain(`is in use by a running teammem-server (pid ${server.child.pid}, ${server.url})`);
    expect(create.stderr).toContain(
      `curl -X POST ${server.url}/v1/admin/tokens -H "Authorization: Bearer <admin token>" -H "Content-Type: application/json" -d '{"user":"bob","role":"member"}'`,
    );
    const revoke = runBin(["token", "revoke", "00000000-0000-4000-8000-000000000000", "--data-dir", dataDir]);
    expect(revoke.status).toBe(3);
    expect(revoke.stderr).toContain(`curl -X DELETE ${server.url}/v1/admin/tokens/00000000-0000-4000-8000-000000000000`);
    expect(runBin(["migrate", "--data-dir", dataDir]).status).toBe(3);
    expect(runBin(["team", "create", "acme", "--data-dir", dataDir]).status).toBe(3);
    const second = runBin(["start", "--port", "0", "--data-dir", dataDir]);
    expect(second.status).toBe(3);
    expect(second.stderr).toContain(`(pid ${server.child.pid}, ${server.url})`);
    // the running server is unharmed, and SIGTERM stops it as SIGINT does
    expect((await members(server.url, firstAdminToken(server.stdout())!)).status).toBe(200);
    expect(await server.stop("SIGTERM")).toBe(0);
    expect(existsSync(join(dataDir, "teammem-server.lock"))).toBe(false);
  });

  it("takes over a lock whose process is gone (not refreshed for 30 s)", { timeout: 120_000 }, async () => {
    const dataDir = join(await tempDir(), "data");
    const dead = spawnSync(process.execPath, ["-e", "process.pid"]).pid!;
    mkdirSync(join(dataDir, "teammem-server.lock"), { recursive: true });
    const longAgo = new Date(Date.now() - 60_000);
    utimesSync(join(dataDir, "teammem-server.lock"), longAgo, longAgo);
    const stale = { pid: dead, host: hostname(), purpose: "server", url: "http://127.0.0.1:1", startedAt: longAgo.toISOString() };
    writeFileSync(join(dataDir, "teammem-server.lock.json"), JSON.stringify(stale));
    const r = runBin(["token", "create", "--team", "default", "--user", "carol", "--role", "reader", "--data-dir", dataDir]);
    expect(r.status).toBe(0);
    expect(existsSync(join(dataDir, "teammem-server.lock"))).toBe(false);
    expect(existsSync(join(dataDir, "teammem-server.lock.json"))).toBe(false);
  });

  it("refuses while an older server's lock file names a live process", async () => {
    const dataDir = join(await tempDir(), "data");
    mkdirSync(dataDir);
    // This test's own process stands for the older server: it is alive.
    writeFileSync(join(dataDir, "teammem-server.lock"), JSON.stringify({ pid: process.pid, purpose: "server", url: "http://127.0.0.1:9", startedAt: "x" }));
    const refused = runBin(["migrate", "--data-dir", dataDir]);
    expect(refused).toMatchObject({ status: 3, stdout: "" });
    expect(refused.stderr).toContain(`is in use by a running teammem-server (pid ${process.pid}, http://127.0.0.1:9)`);
  });

  it("admin commands started together wait for each other instead of failing", { timeout: 120_000 }, async () => {
    const dataDir = join(await tempDir(), "data");
    await seedPgliteDataDir(dataDir); // initdb skipped: the subject is the lock between admin commands
    expect(runBin(["migrate", "--data-dir", dataDir]).status).toBe(0);
    const results = await Promise.all(
      ["u1", "u2", "u3"].map((user) => runBinAsync(["token", "create", "--team", "default", "--user", user, "--role", "member", "--data-dir", dataDir])),
    );
    expect(results.map((r) => r.status), results.map((r) => r.stderr).join("\n---\n")).toEqual([0, 0, 0]);
    expect(new Set(results.map((r) => r.stdout.trim())).size).toBe(3);
  });
});
