/**
 * `teammem-server` failing the way users meet it: a busy port on the first start, a PostgreSQL
 * database that does not exist or does not answer. Real processes of the built CLI (`npx tsc -b` first).
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, inject, it } from "vitest";

const CLI = fileURLToPath(new URL("../../dist/cli.js", import.meta.url));

function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !/^(DATABASE_URL|JWT_SECRET|FINGERPRINT_KEY|HOST|PORT|TEAMMEM_.*)$/.test(k)) env[k] = v;
  }
  return { ...env, LOG_LEVEL: "silent", ...extra };
}

function run(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8", env: cleanEnv(env), timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Runs `start` until it prints its banner, then stops it; resolves with its stdout. */
function startAndStop(args: string[]): Promise<string> {
  const child = spawn(process.execPath, [CLI, "start", ...args], { env: cleanEnv(), stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let errOut = "";
  child.stderr!.on("data", (b) => (errOut += b));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.stdout!.on("data", (b) => {
      out += b;
      if (out.includes("listening on")) child.kill("SIGTERM");
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      if (out.includes("listening on")) resolve(out);
      else reject(new Error(`server exited ${code} without listening\n${out}${errOut}`));
    });
  });
}

const temps: string[] = [];
afterAll(() => {
  for (const d of temps) rmSync(d, { recursive: true, force: true });
});

describe("teammem-server start on a busy port", () => {
  it("exits 1 naming the port and --port, creates no admin token, and the next start prints it", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "teammem-busy-"));
    temps.push(dataDir);
    const blocker: Server = createServer();
    await new Promise<void>((r) => blocker.listen(0, "127.0.0.1", () => r()));
    const port = (blocker.address() as { port: number }).port;
    try {
      const busy = run(["start", "--port", String(port), "--data-dir", dataDir]);
      expect(busy.status).toBe(1);
      expect(busy.stderr).toContain("already in use");
      expect(busy.stderr).toContain(String(port));
      expect(busy.stderr).toContain("--port");
      expect(busy.stdout).not.toContain("Admin token");
    } finally {
      await new Promise((r) => blocker.close(r));
    }
    const out = await startAndStop(["--port", "0", "--data-dir", dataDir]);
    expect(out).toMatch(/Admin token \(shown once, keep it safe\): \S+\.\S+\.\S+/);
  });
});

describe("teammem-server against an unusable PostgreSQL", () => {
  const server = inject("postgresUrl");
  const withPassword = (url: string, host: string | null, database: string) => {
    const u = new URL(url);
    u.password = "hunter2-do-not-print";
    if (host) u.host = host;
    u.pathname = "/" + database;
    return u.toString();
  };

  it.skipIf(!server)("shows the cause of a missing database, never the password", () => {
    const r = run(["migrate"], { DATABASE_URL: withPassword(server!, null, "teammem_missing_db_x") });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('database "teammem_missing_db_x" does not exist');
    expect(r.stderr).not.toContain("hunter2");
    expect(r.stderr).not.toContain("params:");
  });

  it("shows a refused connection as such, never the password", () => {
    const r = run(["migrate"], { DATABASE_URL: withPassword(server ?? "postgres://postgres@127.0.0.1:5432/postgres", "127.0.0.1:1", "x") });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("ECONNREFUSED");
    expect(r.stderr).toContain("DATABASE_URL");
    expect(r.stderr).not.toContain("hunter2");
  });
});

describe("failure messages", () => {
  it("masks a password in any URL of a message", async () => {
    const { maskUrlPasswords } = await import("../../src/failure-message.js");
    // Built from pieces so no credential-shaped literal sits in the source.
    const password = ["p%40", "ss"].join("");
    expect(maskUrlPasswords(`at postgres://u:${password}@h:5432/db and postgresql://x@y/z`)).toBe("at postgres://u:***@h:5432/db and postgresql://x@y/z");
  });
});
