/**
 * `teammem-server` as a user runs it: real processes of the built CLI (`npx tsc -b` first; `npm
 * test` does), an embedded data folder or a fresh PostgreSQL database.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { createPostgresDatabase } from "../../src/testing.js";

const CLI = fileURLToPath(new URL("../../dist/cli.js", import.meta.url));

/** Environment without the variables the CLI reads, so the host's settings don't leak in. */
function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !/^(DATABASE_URL|JWT_SECRET|FINGERPRINT_KEY|HOST|PORT|TEAMMEM_.*)$/.test(k)) env[k] = v;
  }
  return { ...env, ...extra };
}

function run(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8", env: cleanEnv(env), timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

interface Started {
  child: ChildProcess;
  url: string;
  stdout: () => string;
  stop(): Promise<number | null>;
}

/** Starts `teammem-server start --port 0 ...` and resolves once it printed its URL. */
async function start(args: string[], env: Record<string, string> = {}): Promise<Started> {
  const child = spawn(process.execPath, [CLI, "start", "--port", "0", ...args], { env: cleanEnv(env), stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let errOut = "";
  child.stdout!.on("data", (b) => (out += b));
  child.stderr!.on("data", (b) => (errOut += b));
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
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  return {
    child,
    url,
    stdout: () => out,
    stop: async () => {
      if (child.exitCode === null) child.kill("SIGTERM");
      return exited;
    },
  };
}

const members = (url: string, token: string) => fetch(`${url}/v1/admin/members`, { headers: { authorization: `Bearer ${token}` } });

const temps: string[] = [];
const servers: Started[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), "teammem-cli-"));
  temps.push(d);
  return d;
};
afterEach(async () => {
  for (const s of servers.splice(0)) await s.stop();
});
afterAll(() => {
  for (const d of temps) rmSync(d, { recursive: true, force: true });
});

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npx tsc -b\` first (npm test does)`);
});

describe("teammem-server usage errors", () => {
  it.each([
    ["an unknown role", ["token", "create", "--team", "t", "--user", "u", "--role", "owner"], /argument 'owner' is invalid. Allowed choices are admin, member, reader/],
    ["a missing --team", ["token", "create", "--user", "u", "--role", "member"], /required option '--team <name>' not specified/],
    ["a missing --role", ["token", "create", "--team", "t", "--user", "u"], /required option '--role <role>' not specified/],
    ["a bad team name", ["token", "create", "--team", "a b", "--user", "u", "--role", "member"], /team: 1-64 of/],
    ["zero expiry days", ["token", "create", "--team", "t", "--user", "u", "--role", "member", "--expires-in-days", "0"], /days must be a whole number from 1 to 3650/],
    ["a token id that is no UUID", ["token", "revoke", "42"], /a token id is a UUID/],
    ["a port out of range", ["start", "--port", "70000"], /a port is a whole number from 0 to 65535/],
    ["a port that is no number", ["start", "--port", "http"], /a port is a whole number from 0 to 65535/],
    ["a team name with a slash", ["team", "create", "a/b"], /team: 1-64 of/],
    ["an unknown command", ["frobnicate"], /unknown command 'frobnicate'/],
  ])("exits 2 on %s with a clear message and touches no data folder", (_name, args, message) => {
    const dir = join(tempDir(), "data");
    const r = run([...args, "--data-dir", dir]);
    expect({ status: r.status, stdout: r.stdout }).toEqual({ status: 2, stdout: "" });
    expect(r.stderr).toMatch(message);
    expect(existsSync(dir)).toBe(false);
  });

  it.each([
    ["JWT_SECRET", "short", /JWT_SECRET: must be at least 32 characters/],
    ["DATABASE_URL", "mysql://root@localhost/db", /DATABASE_URL: must be a postgres:\/\/ URL/],
    ["PORT", "eighty", /PORT: /],
  ])("exits 2 when %s is invalid, naming the variable", (name, value, message) => {
    const r = run(["migrate", "--data-dir", join(tempDir(), "data")], { [name]: value });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(message);
  });

  it("prints help with exit 0", () => {
    const r = run(["--help"]);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/Usage: teammem-server/);
  });
});

describe("teammem-server on an embedded data folder", () => {
  it("creates a token before the first start, prints an admin token and the client command on the first start only", async () => {
    const dataDir = join(tempDir(), "data");
    const early = run(["token", "create", "--team", "default", "--user", "alice", "--role", "member", "--data-dir", dataDir]);
    expect(early.status).toBe(0);
    const alice = early.stdout.trim();
    expect(alice).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);

    const server = await start(["--data-dir", dataDir]);
    servers.push(server);
    const adminToken = /Admin token \(shown once, keep it safe\): (\S+)/.exec(server.stdout())![1]!;
    expect(server.stdout()).toContain(`teammem init --server ${server.url} --agent claude-code --token ${adminToken}`);
    const list = await members(server.url, adminToken);
    expect(list.status).toBe(200);
    expect(((await list.json()) as { members: { user: string }[] }).members.map((m: { user: string }) => m.user)).toEqual(["admin", "alice"]);
    expect((await members(server.url, alice)).status).toBe(403); // a member: valid, but not admin

    const lock = JSON.parse(readFileSync(join(dataDir, "teammem-server.lock"), "utf8"));
    expect(lock).toEqual({ pid: server.child.pid, purpose: "server", url: server.url, startedAt: expect.any(String) });
    expect(await server.stop()).toBe(0);
    expect(existsSync(join(dataDir, "teammem-server.lock"))).toBe(false);

    const again = await start(["--data-dir", dataDir]);
    servers.push(again);
    expect(again.stdout()).not.toContain("Admin token");
    expect((await members(again.url, adminToken)).status).toBe(200);
  });

  it("refuses admin commands and a second server while a server holds the folder, with exit 3 and the admin API to use", async () => {
    const dataDir = join(tempDir(), "data");
    const server = await start(["--data-dir", dataDir]);
    servers.push(server);
    const create = run(["token", "create", "--team", "default", "--user", "bob", "--role", "member", "--data-dir", dataDir]);
    expect(create.status).toBe(3);
    expect(create.stdout).toBe("");
    expect(create.stderr).toContain(`is in use by a running teammem-server (pid ${server.child.pid}, ${server.url})`);
    expect(create.stderr).toContain(
      `curl -X POST ${server.url}/v1/admin/tokens -H "Authorization: Bearer <admin token>" -H "Content-Type: application/json" -d '{"user":"bob","role":"member"}'`,
    );
    const revoke = run(["token", "revoke", "00000000-0000-4000-8000-000000000000", "--data-dir", dataDir]);
    expect(revoke.status).toBe(3);
    expect(revoke.stderr).toContain(`curl -X DELETE ${server.url}/v1/admin/tokens/00000000-0000-4000-8000-000000000000`);
    expect(run(["migrate", "--data-dir", dataDir]).status).toBe(3);
    expect(run(["team", "create", "acme", "--data-dir", dataDir]).status).toBe(3);
    const second = run(["start", "--port", "0", "--data-dir", dataDir]);
    expect(second.status).toBe(3);
    // the running server is unharmed
    const adminToken = /Admin token \(shown once, keep it safe\): (\S+)/.exec(server.stdout())![1]!;
    expect((await members(server.url, adminToken)).status).toBe(200);
  });

  it("takes over a lock left by a process that is gone", async () => {
    const dataDir = join(tempDir(), "data");
    expect(run(["migrate", "--data-dir", dataDir]).status).toBe(0);
    const dead = spawnSync(process.execPath, ["-e", "process.pid"]).pid!;
    writeFileSync(join(dataDir, "teammem-server.lock"), JSON.stringify({ pid: dead, purpose: "server", url: "http://127.0.0.1:1", startedAt: "x" }));
    const r = run(["token", "create", "--team", "default", "--user", "carol", "--role", "reader", "--data-dir", dataDir]);
    expect(r.status).toBe(0);
    expect(existsSync(join(dataDir, "teammem-server.lock"))).toBe(false);
  });

  it("creates a team with its own admin token and revokes tokens by id", async () => {
    const dataDir = join(tempDir(), "data");
    const team = run(["team", "create", "acme", "--admin", "ada", "--data-dir", dataDir]);
    expect(team.status).toBe(0);
    expect(team.stderr).toMatch(/created team "acme" with admin "ada" \(token id [0-9a-f-]{36}\)/);
    const tokenId = /token id ([0-9a-f-]{36})/.exec(team.stderr)![1]!;
    expect(run(["team", "create", "acme", "--data-dir", dataDir])).toMatchObject({ status: 1, stderr: expect.stringContaining('team "acme" already exists') });
    const revoke = run(["token", "revoke", tokenId, "--data-dir", dataDir]);
    expect(revoke.status).toBe(0);
    expect(revoke.stdout).toMatch(new RegExp(`^revoked token ${tokenId} \\(ada\\) at `));
    expect(run(["token", "revoke", "00000000-0000-4000-8000-000000000000", "--data-dir", dataDir])).toMatchObject({
      status: 1,
      stderr: expect.stringContaining("no token with id"),
    });
    const server = await start(["--data-dir", dataDir]);
    servers.push(server);
    expect((await members(server.url, team.stdout.trim())).status).toBe(401);
  });
});

describe("teammem-server epoch (issue 8)", () => {
  it("shows the identity and epoch; rotate starts a new epoch (same identity) that the next start answers", async () => {
    const dataDir = join(tempDir(), "data");
    const shown = run(["epoch", "show", "--data-dir", dataDir]);
    expect(shown.status).toBe(0);
    const [, id, epoch] = /^server ([0-9a-f-]{36}) epoch ([0-9a-f-]{36}) \(since \S+: first start\)\n$/.exec(shown.stdout)!;
    const rotated = run(["epoch", "rotate", "--reason", "restored from a volume snapshot", "--data-dir", dataDir]);
    expect(rotated.status).toBe(0);
    expect(rotated.stdout).toMatch(new RegExp(`^new epoch: server ${id} epoch (?!${epoch})[0-9a-f-]{36} \\(since \\S+: restored from a volume snapshot\\); previous epoch ${epoch}\n$`));
    const newEpoch = /epoch ([0-9a-f-]{36})/.exec(rotated.stdout)![1]!;
    expect(run(["epoch", "show", "--data-dir", dataDir]).stdout).toContain(`server ${id} epoch ${newEpoch} `);
    const server = await start(["--data-dir", dataDir]);
    servers.push(server);
    const adminToken = /Admin token \(shown once, keep it safe\): (\S+)/.exec(server.stdout())![1]!;
    const info = await fetch(`${server.url}/v1/server`, { headers: { authorization: `Bearer ${adminToken}` } });
    expect(((await info.json()) as { server: unknown }).server).toEqual({ id, epoch: newEpoch });
  }, 180_000); // four starts of the embedded database, seconds each on a loaded machine

  it("prints its version with --version and exit 0", () => {
    const r = run(["--version"]);
    expect(r).toMatchObject({ status: 0, stdout: "0.1.0\n" });
  });
});

describe("teammem-server on PostgreSQL", () => {
  let db: { url: string; drop: () => Promise<void> };
  beforeAll(async () => {
    db = await createPostgresDatabase(inject("postgresUrl"));
  });
  afterAll(() => db?.drop());

  it("issues and revokes tokens from the command line while the server runs", async () => {
    const env = { DATABASE_URL: db.url };
    const server = await start([], env);
    servers.push(server);
    expect(server.stdout()).toContain("Admin token");
    const created = run(["token", "create", "--team", "default", "--user", "dan", "--role", "admin"], env);
    expect(created.status).toBe(0);
    const token = created.stdout.trim();
    expect((await members(server.url, token)).status).toBe(200);
    const tokenId = /issued token ([0-9a-f-]{36})/.exec(created.stderr)![1]!;
    expect(run(["token", "revoke", tokenId], env).status).toBe(0);
    let status = 200;
    for (let i = 0; i < 40 && status === 200; i++) {
      await new Promise((r) => setTimeout(r, 250));
      status = (await members(server.url, token)).status;
    }
    expect(status).toBe(401);
  });
});

describe("teammem-server admin commands run together", () => {
  it("waits for another admin command on the same embedded folder instead of failing", async () => {
    const dataDir = join(tempDir(), "data");
    expect(run(["migrate", "--data-dir", dataDir]).status).toBe(0);
    const runAsync = (user: string) =>
      new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [CLI, "token", "create", "--team", "default", "--user", user, "--role", "member", "--data-dir", dataDir], {
          env: cleanEnv(),
        });
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (b) => (stdout += b));
        child.stderr.on("data", (b) => (stderr += b));
        child.on("exit", (status) => resolve({ status, stdout, stderr }));
      });
    const results = await Promise.all(["u1", "u2", "u3"].map(runAsync));
    expect(results.map((r) => r.status)).toEqual([0, 0, 0]);
    expect(new Set(results.map((r) => r.stdout.trim())).size).toBe(3);
  });
});
