/**
 * Issue 2's end-to-end path, driven through the built CLIs as a user would: a real
 * `teammem-server start` (embedded PGlite, then PostgreSQL) and two `teammem` clients in temporary
 * folders. Nothing private and no secret may reach the server's database.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, inject, it } from "vitest";
import { fakeGithubPat } from "@teammem/scanner/testing";
import { openDatabase, type Database } from "@teammem/server";
import { createPostgresDatabase, dumpAllRows, seedPgliteDataDir } from "@teammem/server/testing";
import { CLIENT_CLI, SERVER_CLI, runCli, startServer } from "../../scripts/lib/processes.mjs";

type Setup = { serverArgs: { dataDir?: string; databaseUrl?: string }; openDb: () => Promise<Database>; cleanup: () => Promise<void> };

const work: string[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  for (const w of work.splice(0)) rmSync(w, { recursive: true, force: true });
});

async function embedded(): Promise<Setup> {
  const dataDir = join(mkdtempSync(join(tmpdir(), "teammem-e2e-data-")), "db");
  work.push(dataDir);
  await seedPgliteDataDir(dataDir); // no initdb: the subject is the sync, not a new folder
  return {
    serverArgs: { dataDir },
    openDb: () => openDatabase({ kind: "pglite", dataDir }),
    cleanup: async () => undefined,
  };
}

async function postgres(): Promise<Setup> {
  const { url, drop } = await createPostgresDatabase(inject("postgresUrl"));
  return {
    serverArgs: { databaseUrl: url },
    openDb: () => openDatabase({ kind: "postgres", url }),
    cleanup: drop,
  };
}

describe.each([
  ["embedded PGlite", embedded],
  ["PostgreSQL", postgres],
] as const)("two teammates through teammem-server on %s", (_name, makeSetup) => {
  it("syncs the team scope, keeps private files and secrets on the machine, and reports the held-back file", async () => {
    const setup = await makeSetup();
    cleanups.push(setup.cleanup);
    const dbArgs = setup.serverArgs.dataDir ? ["--data-dir", setup.serverArgs.dataDir] : [];
    const dbEnv: Record<string, string> = setup.serverArgs.databaseUrl ? { DATABASE_URL: setup.serverArgs.databaseUrl } : {};
    // The embedded database admits one process: create the tokens before the server starts.
    runCli(SERVER_CLI, ["migrate", ...dbArgs], { env: dbEnv });
    const token = (user: string) =>
      runCli(SERVER_CLI, ["token", "create", "--team", "default", "--user", user, "--role", "member", ...dbArgs], { env: dbEnv }).stdout.trim();
    const [tokenA, tokenB] = [token("alice"), token("bob")];

    const server = await startServer(setup.serverArgs);
    cleanups.push(server.stop);
    const root = mkdtempSync(join(tmpdir(), "teammem-e2e-"));
    work.push(root);
    const [dirA, dirB] = [join(root, "a"), join(root, "b")];
    for (const [dir, tok] of [[dirA, tokenA], [dirB, tokenB]] as const) {
      mkdirSync(dir);
      runCli(CLIENT_CLI, ["init", "--dir", dir, "--server", server.url, "--namespace", "acme-web"], { env: { TEAMMEM_TOKEN: tok } });
    }

    const marker = `private-marker-${Date.now()}-${Math.random().toString(36).slice(2)}`;
    const secret = fakeGithubPat();
    mkdirSync(join(dirA, "team"), { recursive: true });
    mkdirSync(join(dirA, "notes"), { recursive: true });
    writeFileSync(join(dirA, "team", "conventions.md"), "# Conventions\n\n- Use pnpm.\n- Run `make check` before pushing.\n");
    writeFileSync(join(dirA, "notes", "private.md"), `# Mine\n${marker}\n`);
    writeFileSync(join(dirA, "team", "leak.md"), `# Deploy\n\nexport GITHUB_TOKEN=${secret}\n`);

    const syncA = runCli(CLIENT_CLI, ["sync", "--dir", dirA], { env: { TEAMMEM_TOKEN: tokenA }, allow: [0, 1] });
    expect(syncA.stderr + syncA.stdout).toContain("team/leak.md:3");
    expect(syncA.stderr + syncA.stdout).not.toContain(secret);
    runCli(CLIENT_CLI, ["sync", "--dir", dirB], { env: { TEAMMEM_TOKEN: tokenB } });

    expect(readFileSync(join(dirB, "team", "conventions.md"), "utf8")).toBe(
      "# Conventions\n\n- Use pnpm.\n- Run `make check` before pushing.\n",
    );
    expect(existsSync(join(dirB, "team", "leak.md"))).toBe(false);
    expect(existsSync(join(dirB, "notes"))).toBe(false);

    const status = JSON.parse(runCli(CLIENT_CLI, ["status", "--dir", dirA, "--json"], { env: { TEAMMEM_TOKEN: tokenA } }).stdout);
    expect(status.heldBack).toEqual([
      expect.objectContaining({ path: "team/leak.md", findings: [expect.objectContaining({ ruleId: "github-pat", line: 3 })] }),
    ]);
    expect(JSON.stringify(status)).not.toContain(secret);

    await server.stop();
    const database = await setup.openDb();
    try {
      const everything = await dumpAllRows(database);
      expect(everything).toContain("Use pnpm.");
      expect(everything).not.toContain(marker);
      expect(everything).not.toContain(secret);
    } finally {
      await database.close();
    }
    expect(server.output()).not.toContain(secret);
  }, 180_000); // a server process and four client processes per database: minutes on a loaded machine
});
