/**
 * `teammem-server` commands called in-process (`run(argv, env, io)`) on both databases: an
 * embedded data folder and a fresh PostgreSQL database. Real processes of the built bin, and the
 * data folder's lock between processes: `cli-processes.test.ts`.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, inject, it } from "vitest";
import { DATABASE_KINDS } from "../../src/testing.js";
import { cli, cliDatabase, firstAdminToken, members, seededDataDir, startCli, tempDir } from "./cli-harness.js";

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
  ])("exits 2 on %s with a clear message and touches no data folder", async (_name, args, message) => {
    const dir = join(await tempDir(), "data");
    const r = await cli([...args, "--data-dir", dir]);
    expect({ status: r.status, stdout: r.stdout }).toEqual({ status: 2, stdout: "" });
    expect(r.stderr).toMatch(message);
    expect(existsSync(dir)).toBe(false);
  });

  it.each([
    ["JWT_SECRET", "short", /JWT_SECRET: must be at least 32 characters/],
    ["DATABASE_URL", "mysql://root@localhost/db", /DATABASE_URL: must be a postgres:\/\/ or postgresql:\/\/ URL/],
    ["PORT", "eighty", /PORT: /],
    ["LOG_LEVEL", "loud", /LOG_LEVEL: /],
  ])("exits 2 when %s is invalid, naming the variable, and creates no data folder", async (name, value, message) => {
    const dir = join(await tempDir(), "data");
    const r = await cli(["migrate", "--data-dir", dir], { [name]: value });
    expect(r).toMatchObject({ status: 2, stdout: "" });
    expect(r.stderr).toMatch(message);
    expect(existsSync(dir)).toBe(false);
  });

  it("prints help to stdout with exit 0", async () => {
    const r = await cli(["--help"]);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^Usage: teammem-server/);
    expect(r.stdout).toMatch(/start \[options\]/);
  });

  it("prints its version with --version and exit 0", async () => {
    expect(await cli(["--version"])).toEqual({ status: 0, stdout: "0.1.0\n", stderr: "" });
  });

  it("warns at start on a port fetch never connects to (no client or browser could reach it), and not on another", { timeout: 120_000 }, async () => {
    const warning = /Warning: port (\d+) is one fetch never connects to \(a WHATWG "bad port"\)/;
    const bad = await startCli(["--data-dir", await seededDataDir(), "--port", "10080"]);
    expect(bad.url).toBe("http://127.0.0.1:10080");
    expect(warning.exec(bad.stdout())?.[1]).toBe("10080");
    expect(await bad.stop()).toBe(0);
    const fine = await startCli(["--data-dir", await seededDataDir()]);
    expect(fine.stdout()).not.toMatch(warning);
  });
});

describe.each(DATABASE_KINDS)("teammem-server on %s", (kind) => {
  it("creates a token before the first start, prints an admin token and the client command on the first start only", { timeout: 120_000 }, async () => {
    const { args, env } = await cliDatabase(kind, inject("postgresUrl"), { seeded: true });
    const early = await cli(["token", "create", "--team", "default", "--user", "alice", "--role", "member", ...args], env);
    expect(early.status).toBe(0);
    const alice = early.stdout.trim();
    expect(alice).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);

    const server = await startCli(args, env);
    const adminToken = firstAdminToken(server.stdout())!;
    expect(server.stdout()).toContain(`teammem init --server ${server.url} --agent claude-code --token ${adminToken}`);
    const list = await members(server.url, adminToken);
    expect(list.status).toBe(200);
    expect(((await list.json()) as { members: { user: string }[] }).members.map((m) => m.user)).toEqual(["admin", "alice"]);
    expect((await members(server.url, alice)).status).toBe(403); // a member: valid, but not admin
    expect(await server.stop()).toBe(0);
    expect(server.stderr()).toContain("teammem-server: shutting down");
    if (kind === "pglite") expect(existsSync(join(args[1]!, "teammem-server.lock"))).toBe(false);

    const again = await startCli(args, env);
    expect(again.stdout()).not.toContain("Admin token");
    expect((await members(again.url, adminToken)).status).toBe(200);
    expect(await again.stop()).toBe(0);
  });

  it("creates a team with its own admin token, refuses it twice, and revokes tokens by id", { timeout: 120_000 }, async () => {
    const { args, env } = await cliDatabase(kind, inject("postgresUrl"), { seeded: true });
    const team = await cli(["team", "create", "acme", "--admin", "ada", ...args], env);
    expect(team.status).toBe(0);
    expect(team.stderr).toMatch(/^created team "acme" with admin "ada" \(token id [0-9a-f-]{36}\)\n$/);
    const tokenId = /token id ([0-9a-f-]{36})/.exec(team.stderr)![1]!;
    expect(await cli(["team", "create", "acme", ...args], env)).toEqual({ status: 1, stdout: "", stderr: 'teammem-server: team "acme" already exists\n' });
    const revoke = await cli(["token", "revoke", tokenId, ...args], env);
    expect(revoke.status).toBe(0);
    expect(revoke.stdout).toMatch(new RegExp(`^revoked token ${tokenId} \\(ada\\) at \\S+\n$`));
    expect(await cli(["token", "revoke", "00000000-0000-4000-8000-000000000000", ...args], env)).toEqual({
      status: 1,
      stdout: "",
      stderr: "teammem-server: no token with id 00000000-0000-4000-8000-000000000000\n",
    });
    const server = await startCli(args, env);
    expect((await members(server.url, team.stdout.trim())).status).toBe(401);
    await server.stop();
  });

  it("shows the identity and epoch; rotate starts a new epoch (same identity) that the next start answers", { timeout: 120_000 }, async () => {
    const { args, env } = await cliDatabase(kind, inject("postgresUrl"), { seeded: true });
    const shown = await cli(["epoch", "show", ...args], env);
    expect(shown.status).toBe(0);
    const [, id, epoch] = /^server ([0-9a-f-]{36}) epoch ([0-9a-f-]{36}) \(since \S+: first start\)\n$/.exec(shown.stdout)!;
    const rotated = await cli(["epoch", "rotate", "--reason", "restored from a volume snapshot", ...args], env);
    expect(rotated.status).toBe(0);
    expect(rotated.stdout).toMatch(
      new RegExp(`^new epoch: server ${id} epoch (?!${epoch})[0-9a-f-]{36} \\(since \\S+: restored from a volume snapshot\\); previous epoch ${epoch}\n$`),
    );
    const newEpoch = /epoch ([0-9a-f-]{36})/.exec(rotated.stdout)![1]!;
    expect((await cli(["epoch", "show", ...args], env)).stdout).toContain(`server ${id} epoch ${newEpoch} `);
    const server = await startCli(args, env);
    const adminToken = firstAdminToken(server.stdout())!;
    const info = await fetch(`${server.url}/v1/server`, { headers: { authorization: `Bearer ${adminToken}` } });
    expect(((await info.json()) as { server: unknown }).server).toEqual({ id, epoch: newEpoch });
    await server.stop();
  });

  it("migrate applies the migrations and says where", async () => {
    const { args, env } = await cliDatabase(kind, inject("postgresUrl"));
    const r = await cli(["migrate", ...args], env);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(kind === "pglite" ? /^migrations applied \(embedded database in \/\S+\/data\)\n$/ : /^migrations applied \(PostgreSQL \(DATABASE_URL\)\)\n$/);
    expect((await cli(["migrate", ...args], env)).status).toBe(0); // idempotent
  });
});

describe("teammem-server on an embedded data folder held in this process", () => {
  it("refuses an admin command while a server started by run() holds the folder: exit 3 naming this pid and the URL", { timeout: 120_000 }, async () => {
    const dataDir = await seededDataDir();
    const server = await startCli(["--data-dir", dataDir]);
    const create = await cli(["token", "create", "--team", "default", "--user", "bob", "--role", "member", "--data-dir", dataDir]);
    expect(create).toMatchObject({ status: 3, stdout: "" });
    expect(create.stderr).toContain(`is in use by a running teammem-server (pid ${process.pid}, ${server.url})`);
    expect(create.stderr).toContain(`curl -X POST ${server.url}/v1/admin/tokens`);
    expect(await server.stop()).toBe(0);
    expect((await cli(["token", "create", "--team", "default", "--user", "bob", "--role", "member", "--data-dir", dataDir])).status).toBe(0);
  });
});

describe("teammem-server on PostgreSQL while the server runs", () => {
  it("issues and revokes tokens from the command line; the running server refuses a revoked token within 5 s", async () => {
    const { args, env } = await cliDatabase("postgres", inject("postgresUrl"));
    const server = await startCli(args, env);
    expect(server.stdout()).toContain("Admin token");
    const created = await cli(["token", "create", "--team", "default", "--user", "dan", "--role", "admin"], env);
    expect(created.status).toBe(0);
    const token = created.stdout.trim();
    expect((await members(server.url, token)).status).toBe(200);
    const tokenId = /issued token ([0-9a-f-]{36})/.exec(created.stderr)![1]!;
    expect((await cli(["token", "revoke", tokenId], env)).status).toBe(0);
    let status = 200;
    for (let i = 0; i < 40 && status === 200; i++) {
      await new Promise((r) => setTimeout(r, 250));
      status = (await members(server.url, token)).status;
    }
    expect(status).toBe(401);
    await server.stop();
  });
});
