#!/usr/bin/env node
/**
 * `teammem-server`: start the server and administer teams and tokens from the command line.
 * Exit codes: 0 ok, 1 failure, 2 usage or configuration error, 3 the embedded data folder is in
 * use by another process (a running server: stop it or use its admin API).
 */
import { createRequire } from "node:module";
import { Command, CommanderError, InvalidArgumentError, Option } from "commander";
import { CLI_ACTOR, recordAuditEvent } from "./audit/events.js";
import { ensureMember, ensureTeam, findTeam } from "./admin/teams.js";
import { issueToken, revokeToken } from "./admin/tokens.js";
import { ROLES, type Role } from "./auth/auth-context.js";
import { DataDirLockedError } from "./data-dir-lock.js";
import { loadServerIdentity, startNewEpoch, type ServerIdentity } from "./identity/server-identity.js";
import { describeFailure } from "./failure-message.js";
import { EnvError, openStore, readServerEnv, startServer, type OpenedStore } from "./server.js";

const EXIT = { ok: 0, failure: 1, usage: 2, locked: 3 } as const;
const NAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DEFAULT_DATA_DIR = "./.teammem-server";
/** This package's version (package.json beside src/ and dist/). */
const VERSION = (createRequire(import.meta.url)("../package.json") as { version: string }).version;

class UsageError extends Error {}

const out = (line: string) => process.stdout.write(line + "\n");
const err = (line: string) => process.stderr.write(line + "\n");

function parsePort(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535) throw new InvalidArgumentError("a port is a whole number from 0 to 65535");
  return n;
}
function parseDays(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > 3650) throw new InvalidArgumentError("days must be a whole number from 1 to 3650");
  return n;
}
function parseName(what: string) {
  return (value: string): string => {
    if (!NAME.test(value)) throw new InvalidArgumentError(`${what}: 1-64 of [A-Za-z0-9._@-], starting alphanumeric`);
    return value;
  };
}

/** What to tell a user whose admin command met a data folder held by a running server. */
function lockedAdvice(e: DataDirLockedError, apiExample: string | null): string {
  const url = e.holder.url ?? "http://<host>:<port>";
  const lines = [
    `teammem-server: ${e.message}.`,
    "The embedded database admits one process at a time, so this command did not open it.",
  ];
  if (e.holder.purpose !== "server") {
    lines.push("It did not finish within 15 s; try again once it has.");
  } else if (apiExample) {
    lines.push("Stop the server and run the command again, or use the server's admin API with an admin token, e.g.:");
    lines.push(`  ${apiExample.replaceAll("{url}", url)}`);
  } else {
    lines.push("Stop the server and run the command again.");
  }
  return lines.join("\n");
}

/** Opens the configured database for one admin command, runs `fn`, closes it. */
async function withStore<T>(dataDir: string | undefined, purpose: string, apiExample: string | null, fn: (store: OpenedStore) => Promise<T>): Promise<T> {
  const env = readServerEnv();
  let store: OpenedStore | undefined;
  // Another short admin command holding the folder is waited for (up to 15 s); a server is not.
  for (const deadline = Date.now() + 15_000; !store; ) {
    try {
      store = await openStore(env, dataDir ?? env.TEAMMEM_DATA_DIR ?? DEFAULT_DATA_DIR, purpose);
    } catch (e) {
      if (!(e instanceof DataDirLockedError)) throw e;
      if (e.holder.purpose === "server" || Date.now() > deadline) {
        err(lockedAdvice(e, apiExample));
        process.exit(EXIT.locked);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

const dataDirOption = () =>
  new Option("--data-dir <dir>", `folder of the embedded database, when DATABASE_URL is unset (default: TEAMMEM_DATA_DIR or ${DEFAULT_DATA_DIR})`);

function buildProgram(): Command {
  const program = new Command("teammem-server")
    .description("teammem server: versioned team memory with server-side secret scanning.\n" +
      "Database: PostgreSQL when DATABASE_URL is set, otherwise an embedded PGlite database in --data-dir.")
    .version(VERSION, "--version", "print the version and exit")
    .exitOverride()
    .showHelpAfterError("(run with --help for usage)");

  program
    .command("start")
    .description("apply migrations and serve HTTP; the first start prints an admin token and the client command")
    .option("--host <host>", "address to listen on (default: HOST or 127.0.0.1)")
    .option("--port <port>", "port to listen on, 0 for any free one (default: PORT or 8080)", parsePort)
    .addOption(dataDirOption())
    .action(async (o: { host?: string; port?: number; dataDir?: string }) => {
      const env = readServerEnv();
      const running = await startServer({
        host: o.host ?? env.HOST ?? "127.0.0.1",
        port: o.port ?? env.PORT ?? 8080,
        dataDir: o.dataDir ?? env.TEAMMEM_DATA_DIR ?? DEFAULT_DATA_DIR,
        env,
        print: out,
      });
      await new Promise<void>((resolve) => {
        const stop = () => {
          process.once("SIGINT", () => process.exit(130));
          process.once("SIGTERM", () => process.exit(143));
          resolve();
        };
        process.once("SIGINT", stop);
        process.once("SIGTERM", stop);
      });
      err("teammem-server: shutting down");
      await running.close();
    });

  program
    .command("migrate")
    .description("apply pending migrations and exit")
    .addOption(dataDirOption())
    .action(async (o: { dataDir?: string }) => {
      await withStore(o.dataDir, "migrate", null, async (store) => {
        out(`migrations applied (${store.description})`);
      });
    });

  const team = program.command("team").description("manage teams");
  team
    .command("create")
    .description("create a team with an admin user and print that admin's token (stdout: the token only)")
    .argument("<name>", "team name", parseName("team"))
    .option("--admin <user>", "name of the team's first admin", parseName("user"), "admin")
    .option("--expires-in-days <n>", "token lifetime in days (default: no expiry)", parseDays)
    .addOption(dataDirOption())
    .action(async (name: string, o: { admin: string; expiresInDays?: number; dataDir?: string }) => {
      await withStore(o.dataDir, "team create", null, async (store) => {
        if (await findTeam(store.database.db, name)) throw new Error(`team "${name}" already exists`);
        const teamId = await ensureTeam(store.database.db, name);
        await ensureMember(store.database.db, teamId, o.admin, "admin");
        const issued = await issueToken(store.database.db, store.secrets.jwtSecret, {
          teamName: name,
          userName: o.admin,
          role: "admin",
          ...(o.expiresInDays ? { expiresInSeconds: o.expiresInDays * 86_400 } : {}),
        });
        await recordAuditEvent(store.database.db, { teamId, actor: CLI_ACTOR, kind: "token_issued", tokenId: issued.tokenId, targetUser: o.admin, role: "admin" });
        err(`created team "${name}" with admin "${o.admin}" (token id ${issued.tokenId})`);
        out(issued.token);
      });
    });

  const token = program.command("token").description("issue and revoke tokens");
  token
    .command("create")
    .description("issue a token (stdout: the token only); creates the team and user if new")
    .requiredOption("--team <name>", "team name", parseName("team"))
    .requiredOption("--user <name>", "user name", parseName("user"))
    .addOption(new Option("--role <role>", "role in the team").choices(ROLES).makeOptionMandatory())
    .option("--expires-in-days <n>", "lifetime in days (default: no expiry)", parseDays)
    .addOption(dataDirOption())
    .action(async (o: { team: string; user: string; role: Role; expiresInDays?: number; dataDir?: string }) => {
      const body = JSON.stringify({ user: o.user, role: o.role, ...(o.expiresInDays ? { expiresInDays: o.expiresInDays } : {}) });
      const api = `curl -X POST {url}/v1/admin/tokens -H "Authorization: Bearer <admin token>" -H "Content-Type: application/json" -d '${body}'`;
      await withStore(o.dataDir, "token create", api, async (store) => {
        const issued = await issueToken(store.database.db, store.secrets.jwtSecret, {
          teamName: o.team,
          userName: o.user,
          role: o.role,
          ...(o.expiresInDays ? { expiresInSeconds: o.expiresInDays * 86_400 } : {}),
        });
        const teamId = (await findTeam(store.database.db, o.team))!;
        await recordAuditEvent(store.database.db, { teamId, actor: CLI_ACTOR, kind: "token_issued", tokenId: issued.tokenId, targetUser: o.user, role: o.role });
        err(`issued token ${issued.tokenId} for ${o.user} (${o.role}) in team ${o.team}`);
        out(issued.token);
      });
    });
  token
    .command("revoke")
    .description("revoke a token by its id (takes effect on running servers within 5 s)")
    .argument("<tokenId>", "token id (a UUID, as printed by token create or GET /v1/admin/tokens)", (v: string) => {
      if (!UUID.test(v)) throw new InvalidArgumentError("a token id is a UUID");
      return v;
    })
    .addOption(dataDirOption())
    .action(async (tokenId: string, o: { dataDir?: string }) => {
      const api = `curl -X DELETE {url}/v1/admin/tokens/${tokenId} -H "Authorization: Bearer <admin token>"`;
      await withStore(o.dataDir, "token revoke", api, async (store) => {
        const revoked = await revokeToken(store.database.db, tokenId);
        if (!revoked) throw new Error(`no token with id ${tokenId}`);
        await recordAuditEvent(store.database.db, { teamId: revoked.teamId, actor: CLI_ACTOR, kind: "token_revoked", tokenId, targetUser: revoked.user, role: revoked.role });
        out(`revoked token ${tokenId} (${revoked.user}) at ${revoked.revokedAt.toISOString()}`);
      });
    });
  const epoch = program
    .command("epoch")
    .description("the server's identity and epoch: clients reconcile by content hashes when the epoch changes");
  const describeIdentity = (i: ServerIdentity) =>
    `server ${i.server.id} epoch ${i.server.epoch} (since ${i.epochStartedAt}: ${i.epochReason})`;
  epoch
    .command("show")
    .description("print the server id and the current epoch, when and why it started")
    .addOption(dataDirOption())
    .action(async (o: { dataDir?: string }) => {
      await withStore(o.dataDir, "epoch show", null, async (store) => out(describeIdentity(await loadServerIdentity(store.database.db))));
    });
  epoch
    .command("rotate")
    .description(
      "start a new epoch, so every client reconciles on its next sync: run it after restoring a file-level copy of the " +
        "database (data folder, volume snapshot), which the server cannot tell from the original",
    )
    .option("--reason <text>", "why, shown to operators and clients", "rotated by an operator (teammem-server epoch rotate)")
    .addOption(dataDirOption())
    .action(async (o: { reason: string; dataDir?: string }) => {
      await withStore(o.dataDir, "epoch rotate", null, async (store) => {
        const before = await loadServerIdentity(store.database.db);
        const after = await startNewEpoch(store.database.db, o.reason);
        out(`new epoch: ${describeIdentity(after)}; previous epoch ${before.server.epoch}`);
        err("running servers on this database answer the new epoch within 5 s; clients reconcile on their next sync");
      });
    });
  return program;
}

async function main(argv: string[]): Promise<number> {
  try {
    await buildProgram().parseAsync(argv);
    return EXIT.ok;
  } catch (e) {
    if (e instanceof CommanderError) {
      return e.code === "commander.helpDisplayed" || e.code === "commander.version" || e.code === "commander.help" ? EXIT.ok : EXIT.usage;
    }
    if (e instanceof EnvError) {
      err(`teammem-server: invalid environment: ${e.message}`);
      return EXIT.usage;
    }
    if (e instanceof DataDirLockedError) {
      err(`teammem-server: ${e.message}.\nThe embedded database admits one process at a time: stop that process first${e.holder.url ? `, or use the server at ${e.holder.url}` : ""}.`);
      return EXIT.locked;
    }
    if (e instanceof UsageError) {
      err(`teammem-server: ${e.message}`);
      return EXIT.usage;
    }
    err(`teammem-server: ${describeFailure(e)}`);
    return EXIT.failure;
  }
}

process.exitCode = await main(process.argv);
