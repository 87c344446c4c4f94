/**
 * Process side of the server: environment → database (+ lock) → migrations → buildApp → listen.
 * Reads no `process` state: the CLI (`cli/run.ts`) passes the environment and where output goes.
 */
import { resolve } from "node:path";
import { FETCH_BAD_PORTS } from "@teammem/protocol";
import { parseServerEnv, type ServerEnv } from "./config/server-env.js";
import { anyAdminTokenIssued, issueAuditedToken } from "./admin/tokens.js";
import { SERVER_ACTOR } from "./audit/events.js";
import { buildApp } from "./app.js";
import { prepareDataDir } from "./db/data-dir.js";
import { listenFailure, reserveListenAddress } from "./http/listen-address.js";
import { acquireDataDirLock, type DataDirLock } from "./db/data-dir-lock.js";
import { openDatabase, type Database } from "./db/database.js";
import { DEFAULT_DB_CONNECT_TIMEOUT_MS, waitForDatabase } from "./db/wait-for-database.js";
import { DEFAULT_LIMITS, type Limits } from "./limits.js";
import { loadServerSecrets, type ServerSecrets } from "./settings.js";

export { EnvError } from "./config/server-env.js";

/**
 * Validates an environment (the CLI passes `process.env`): see config/server-env.ts.
 * @throws EnvError listing every invalid variable, one line each.
 */
export function readServerEnv(env: Readonly<Record<string, string | undefined>>): ServerEnv {
  return parseServerEnv(env);
}

/** Limits from the TEAMMEM_* variables over the defaults. */
function limitsFromEnv(env: ServerEnv): Limits {
  const pick = (v: number | undefined, d: number) => (v === undefined ? d : v);
  return {
    maxEntryBytes: pick(env.TEAMMEM_MAX_ENTRY_BYTES, DEFAULT_LIMITS.maxEntryBytes),
    maxEntriesPerNamespace: pick(env.TEAMMEM_MAX_ENTRIES_PER_NAMESPACE, DEFAULT_LIMITS.maxEntriesPerNamespace),
    maxBodyBytes: pick(env.TEAMMEM_MAX_BODY_BYTES, DEFAULT_LIMITS.maxBodyBytes),
    maxOperationsPerBatch: pick(env.TEAMMEM_MAX_OPERATIONS_PER_BATCH, DEFAULT_LIMITS.maxOperationsPerBatch),
    rateLimitMax: pick(env.TEAMMEM_RATE_LIMIT_MAX, DEFAULT_LIMITS.rateLimitMax),
    rateLimitWindowMs: pick(env.TEAMMEM_RATE_LIMIT_WINDOW_MS, DEFAULT_LIMITS.rateLimitWindowMs),
  };
}

/** An open, migrated database with the server's secrets, and the data-folder lock if embedded. */
export interface OpenedStore {
  database: Database;
  secrets: ServerSecrets;
  /** Human description, e.g. "PostgreSQL" or "embedded database in /abs/dir". */
  description: string;
  /** Held for embedded databases only. */
  lock: DataDirLock | null;
  close(): Promise<void>;
}

/**
 * Opens the database the environment names: PostgreSQL when DATABASE_URL is set, else PGlite in
 * `dataDir` (created if missing, locked for this process as `purpose`). Applies migrations and
 * loads (or creates) the server secrets. PostgreSQL not reachable yet (down, starting up) is waited
 * for up to TEAMMEM_DB_CONNECT_TIMEOUT_MS (default 30 s), one `notice` line per failed attempt.
 * @param notice receives one-line progress notices (no newline); stderr in the CLI
 * @throws DataDirLockedError when another live process holds the embedded data folder.
 * @throws DatabaseUnreachableError when PostgreSQL stayed unreachable for the whole wait.
 */
export async function openStore(env: ServerEnv, dataDir: string, purpose: string, notice: (line: string) => void = () => undefined): Promise<OpenedStore> {
  let lock: DataDirLock | null = null;
  let database: Database;
  let description: string;
  if (env.DATABASE_URL) {
    const timeoutMs = env.TEAMMEM_DB_CONNECT_TIMEOUT_MS ?? DEFAULT_DB_CONNECT_TIMEOUT_MS;
    if (timeoutMs > 0) await waitForDatabase(env.DATABASE_URL, { timeoutMs, notice });
    database = await openDatabase({
      kind: "postgres",
      url: env.DATABASE_URL,
      ...(env.TEAMMEM_DB_POOL_SIZE !== undefined ? { poolSize: env.TEAMMEM_DB_POOL_SIZE } : {}),
      ...(env.TEAMMEM_DB_LOCK_TIMEOUT_MS !== undefined ? { lockTimeoutMs: env.TEAMMEM_DB_LOCK_TIMEOUT_MS } : {}),
      ...(env.TEAMMEM_DB_STATEMENT_TIMEOUT_MS !== undefined ? { statementTimeoutMs: env.TEAMMEM_DB_STATEMENT_TIMEOUT_MS } : {}),
    });
    description = "PostgreSQL (DATABASE_URL)";
  } else {
    const dir = resolve(dataDir);
    await prepareDataDir(dir);
    lock = await acquireDataDirLock(dir, purpose);
    try {
      database = await openDatabase({ kind: "pglite", dataDir: dir });
    } catch (err) {
      await lock.release();
      throw err;
    }
    description = `embedded database in ${dir}`;
  }
  try {
    await database.migrate();
    const secrets = await loadServerSecrets(database.db, env.JWT_SECRET ? { jwtSecret: env.JWT_SECRET } : {});
    return {
      database,
      secrets,
      description,
      lock,
      close: async () => {
        await database.close();
        await lock?.release();
      },
    };
  } catch (err) {
    await database.close().catch(() => undefined);
    await lock?.release();
    throw err;
  }
}

/** Default of TEAMMEM_REQUEST_TIMEOUT_MS: a request (headers and body) must arrive within 2 minutes. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 120_000;

export interface StartOptions {
  host: string;
  port: number;
  dataDir: string;
  env: ServerEnv;
  /** Receives the banner (URL, first-start admin token and client command) in one call; stdout in the CLI. */
  print: (line: string) => void;
  /** Receives the server log (pino's JSON lines, each ending in a newline); stderr in the CLI. */
  log: { write(line: string): void };
  /** Receives one-line notices before the server log starts (waiting for PostgreSQL; no newline); stderr in the CLI. */
  notice?: (line: string) => void;
}

export interface RunningServer {
  /** Base URL, e.g. http://127.0.0.1:8080 (the wildcard host shown as 127.0.0.1). */
  url: string;
  /**
   * Settles when the embedded data folder's lock is lost while serving (never with PostgreSQL):
   * another process may open the folder, so the caller must close the server.
   */
  lockLost: Promise<Error>;
  /**
   * Stops accepting connections, lets in-flight requests (and so their transactions) finish,
   * answers requests arriving meanwhile on open keep-alive connections with 503
   * `server_shutting_down`, then closes the database and releases the lock. Idempotent.
   */
  close(): Promise<void>;
}

/**
 * Starts the server: first binds `host:port` (ListenError naming it: busy, no such local address,
 * privileged port, a host name that does not resolve), then opens the database and serves on that
 * socket: one bind, so no other process can take the port in between. Connections arriving
 * meanwhile wait for the server. On the first start against a database where no admin token was
 * ever issued, creates team `default` with user `admin` and prints that admin token and the client
 * command; only once the server listens. A start that fails closes what it opened (socket, database).
 */
export async function startServer(opts: StartOptions): Promise<RunningServer> {
  // An address that cannot be listened on fails now, not after the wait for the database.
  const reserved = await reserveListenAddress(opts.host, opts.port);
  let store: OpenedStore;
  try {
    store = await openStore(opts.env, opts.dataDir, "server", opts.notice);
  } catch (err) {
    await reserved.release();
    throw err;
  }
  try {
    const app = await buildApp({
      db: store.database.db,
      jwtSecret: store.secrets.jwtSecret,
      limits: limitsFromEnv(opts.env),
      ...(opts.env.TEAMMEM_AUDIT_RETENTION_DAYS !== undefined ? { audit: { retentionDays: opts.env.TEAMMEM_AUDIT_RETENTION_DAYS } } : {}),
      ...(opts.env.TEAMMEM_OPERATION_RETENTION_DAYS !== undefined ? { operationRetention: { retentionDays: opts.env.TEAMMEM_OPERATION_RETENTION_DAYS } } : {}),
      logger: { level: opts.env.LOG_LEVEL, stream: opts.log },
      ...(opts.env.TEAMMEM_ALLOWED_ORIGINS ? { live: { allowedOrigins: opts.env.TEAMMEM_ALLOWED_ORIGINS } } : {}),
      processMetrics: true,
      httpTimeouts: { requestMs: opts.env.TEAMMEM_REQUEST_TIMEOUT_MS ?? DEFAULT_REQUEST_TIMEOUT_MS },
    }).catch(async (err: unknown) => {
      await reserved.release();
      throw err;
    });
    let address: string;
    // Listen first, bootstrap after: a start that cannot serve must not create the first admin
    // token, or the next start would never show it.
    let firstToken: string | null = null;
    try {
      // On the reserved socket (its resolved address, so Fastify binds no second one for `localhost`).
      address = await app.listen({ ...reserved.adopt(app.server), port: reserved.port });
      if (!(await anyAdminTokenIssued(store.database.db))) {
        firstToken = (await issueAuditedToken(store.database.db, store.secrets.jwtSecret, { teamName: "default", userName: "admin", role: "admin" }, SERVER_ACTOR)).token;
      }
    } catch (err) {
      await app.close();
      await reserved.release();
      throw listenFailure(err, opts.host, opts.port) ?? err;
    }
    const port = new URL(address).port;
    const shownHost = opts.host === "0.0.0.0" || opts.host === "::" ? "127.0.0.1" : opts.host.includes(":") ? `[${opts.host}]` : opts.host;
    const url = `http://${shownHost}:${port}`;
    await store.lock?.update({ url });
    const banner = [`teammem-server listening on ${url} (${store.description})`];
    if (FETCH_BAD_PORTS.has(Number(port)))
      banner.push(
        `Warning: port ${port} is one fetch never connects to (a WHATWG "bad port"): teammem clients and browsers cannot reach the server on it; use another port, or a proxy in front on one.`,
      );
    if (firstToken) {
      banner.push(
        `First start: created team "default" with admin user "admin".`,
        `Admin token (shown once, keep it safe): ${firstToken}`,
        `Connect a client (in the repository: Claude Code's memory folder, namespace owner/repo from the remote):`,
        `  teammem init --server ${url} --agent claude-code --token ${firstToken}`,
        `  (any folder: teammem init --server ${url} --dir <folder> --namespace <owner/repo> --token <token>)`,
        `Create a token per teammate: teammem-server token create --team default --user <name> --role member`,
        `  (with the embedded database while the server runs, use the admin API instead: POST ${url}/v1/admin/tokens)`,
      );
    }
    opts.print(banner.join("\n")); // one write, so a reader never sees half of it
    let closing: Promise<void> | null = null;
    return {
      url,
      lockLost: store.lock?.lost ?? new Promise<Error>(() => undefined),
      close: () =>
        (closing ??= (async () => {
          await app.close();
          await store.close();
        })()),
    };
  } catch (err) {
    await store.close();
    throw err;
  }
}
