/**
 * The environment variables the server reads, as one zod schema, and their validation: every bad
 * value is reported at once, one line per variable, before anything is opened. Reads no
 * `process.env` itself (server.ts passes it in). `.env.example` at the repository root documents
 * every variable; a test keeps the two equal.
 */
import { z } from "zod";
import { isListenHost, LISTEN_HOST_RULE } from "../http/listen-address.js";
import { MAX_JSON_ITEMS } from "../http/json-shape.js";

/** Empty strings count as unset (`FOO=` in an env file, `-e FOO=` in docker run). */
const unsetIfEmpty = (v: unknown) => (v === "" ? undefined : v);

/** A whole number in [min, max], given as decimal digits. */
function wholeNumber(min: number, max: number, unit = "") {
  const range = `a whole number from ${min} to ${max}${unit}`;
  return z.preprocess(
    unsetIfEmpty,
    z
      .string()
      .regex(/^\d+$/, `must be ${range}`)
      .transform(Number)
      .pipe(z.number().min(min, `must be ${range}`).max(max, `must be ${range}`))
      .optional(),
  );
}

const text = z.preprocess(unsetIfEmpty, z.string().optional());

/** Environment variables of `teammem-server`; every one is optional (defaults in the README). */
export const ServerEnv = z.object({
  /** postgres://user:pass@host:5432/db: PostgreSQL; unset: embedded PGlite in the data folder. */
  DATABASE_URL: z.preprocess(
    unsetIfEmpty,
    z
      .string()
      .regex(/^postgres(ql)?:\/\/[^\s]+$/, "must be a postgres:// or postgresql:// URL")
      .refine((v) => URL.canParse(v), "must be a postgres:// or postgresql:// URL")
      .optional(),
  ),
  /** Connections in the PostgreSQL pool of one server process (default 10). */
  TEAMMEM_DB_POOL_SIZE: wholeNumber(1, 1000),
  /** How long a statement waits for a row lock before the request is answered 503 database_busy, ms (default 5000). */
  TEAMMEM_DB_LOCK_TIMEOUT_MS: wholeNumber(1, 600_000, " (milliseconds)"),
  /** Longest statement before it is cancelled and the request is answered 503 database_busy, ms (default 30000). */
  TEAMMEM_DB_STATEMENT_TIMEOUT_MS: wholeNumber(1, 3_600_000, " (milliseconds)"),
  /**
   * How long a start (and every admin command) waits for PostgreSQL to accept a connection,
   * retrying with backoff while it is unreachable or starting up, ms (default 30000; 0: no wait).
   */
  TEAMMEM_DB_CONNECT_TIMEOUT_MS: wholeNumber(0, 3_600_000, " (milliseconds)"),
  /** Data folder of the embedded database; `--data-dir` wins. */
  TEAMMEM_DATA_DIR: text,
  /** HS256 key (≥ 32 chars); unset: generated once and kept in the database. */
  JWT_SECRET: z.preprocess(unsetIfEmpty, z.string().min(32, "must be at least 32 characters").optional()),
  /** Defaults for `--host` / `--port`: an IP address or a host name (`isListenHost`). */
  HOST: z.preprocess(unsetIfEmpty, z.string().refine(isListenHost, LISTEN_HOST_RULE).optional()),
  PORT: wholeNumber(0, 65535),
  LOG_LEVEL: z.preprocess(
    unsetIfEmpty,
    z
      .enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"], {
        error: "must be one of fatal, error, warn, info, debug, trace, silent",
      })
      .default("info"),
  ),
  /** After SIGTERM/SIGINT: how long in-flight requests may take before the process exits anyway, ms (default 10000). */
  TEAMMEM_SHUTDOWN_TIMEOUT_MS: wholeNumber(0, 600_000, " (milliseconds)"),
  /**
   * Most time to receive one whole request (headers and body) before it is answered 408
   * request_timeout and its connection closed, ms (default 120000; 0: no limit). Bounds slow bodies.
   */
  TEAMMEM_REQUEST_TIMEOUT_MS: wholeNumber(0, 3_600_000, " (milliseconds)"),
  TEAMMEM_MAX_ENTRY_BYTES: wholeNumber(1, 2 ** 31),
  TEAMMEM_MAX_ENTRIES_PER_NAMESPACE: wholeNumber(1, 2 ** 31),
  TEAMMEM_MAX_BODY_BYTES: wholeNumber(1, 2 ** 31),
  TEAMMEM_MAX_OPERATIONS_PER_BATCH: wholeNumber(1, MAX_JSON_ITEMS),
  TEAMMEM_RATE_LIMIT_MAX: wholeNumber(0, 2 ** 31),
  TEAMMEM_RATE_LIMIT_WINDOW_MS: wholeNumber(1, 86_400_000, " (milliseconds)"),
  /** Audit events older than this many days are deleted (hourly); 0 keeps them forever. Default 365. */
  TEAMMEM_AUDIT_RETENTION_DAYS: wholeNumber(0, 36_500),
  /**
   * Stored operation results (idempotency keys) older than this many days are deleted (hourly); 0
   * keeps them forever. Default 90. A replay after that is decided again, never applied twice.
   */
  TEAMMEM_OPERATION_RETENTION_DAYS: wholeNumber(0, 36_500),
  /** Comma-separated origins (`https://console.example.com`) allowed to open a change stream; unset: any. */
  TEAMMEM_ALLOWED_ORIGINS: z.preprocess(
    (v) => (typeof v === "string" && v.trim() !== "" ? v.split(",").map((o) => o.trim()).filter(Boolean) : undefined),
    z.array(z.string().regex(/^https?:\/\/[^/\s,]+$/, "must be comma-separated origins like https://console.example.com (scheme://host[:port], no path)")).optional(),
  ),
});
export type ServerEnv = z.infer<typeof ServerEnv>;

/** Names of every variable the server reads. */
export const SERVER_ENV_NAMES = Object.keys(ServerEnv.shape) as (keyof ServerEnv)[];

/** The environment is invalid: `problems` holds one line per bad variable, e.g. `PORT: must be ...`. */
export class EnvError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join("\n"));
  }
}

/**
 * Validates `env` (e.g. `process.env`).
 * @throws EnvError listing every invalid variable at once, one `NAME: what is wrong` line each;
 *   values are never quoted (one may be a secret).
 */
export function parseServerEnv(env: Record<string, string | undefined>): ServerEnv {
  const picked = Object.fromEntries(SERVER_ENV_NAMES.map((name) => [name, env[name]]));
  const parsed = ServerEnv.safeParse(picked);
  if (parsed.success) return parsed.data;
  const byVariable = new Map<string, string>();
  for (const issue of parsed.error.issues) {
    const name = String(issue.path[0] ?? "environment");
    if (!byVariable.has(name)) byVariable.set(name, `${name}: ${issue.message}`);
  }
  throw new EnvError([...byVariable.values()]);
}
