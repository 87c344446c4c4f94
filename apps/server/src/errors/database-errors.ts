/**
 * Database failures that are not the request's fault and pass by themselves: a lock or statement
 * timeout, a serialization failure or deadlock, a connection refused, dropped or not obtained in
 * time (PostgreSQL restarting, failing over, out of connections), or a login refused (the database
 * dropped or renamed, the role's password changed: the operator's to fix, never a server bug). They become 503
 * `database_busy` with Retry-After, never 500; the transaction was rolled back, so nothing is
 * half-written and the same request can be sent again (writes are idempotent by opId).
 */
import { Refusal } from "./refusal.js";

/** Seconds a client is told to wait before retrying, in ms. */
const DATABASE_RETRY_AFTER_MS = 1000;

/**
 * SQLSTATE codes (PostgreSQL appendix A) of transient failures: 40001 serialization_failure,
 * 40P01 deadlock_detected, 55P03 lock_not_available (lock_timeout), 57014 query_canceled
 * (statement_timeout), 57P01-57P03 admin/crash shutdown and cannot_connect_now, 53300
 * too_many_connections; class 08 (connection exceptions) by prefix. Also a login the server
 * refuses: 3D000 (the database does not exist: dropped or renamed under a running server), 28000
 * and 28P01 (the role or its password changed); and classes 53 (insufficient resources: disk
 * full, out of memory) and 58 (system or I/O error) by prefix. None is the request's fault.
 */
const TRANSIENT_SQLSTATES = new Set(["40001", "40P01", "55P03", "57014", "57P01", "57P02", "57P03", "53300", "3D000", "28000", "28P01"]);
/** SQLSTATE classes (first two characters) that are all transient or operator-side. */
const TRANSIENT_CLASSES = ["08", "53", "58"];
/** Node socket errors of a database connection. */
const SOCKET_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH", "ENOTFOUND", "EAI_AGAIN"]);
/** `pg`'s own messages for a connection lost or not obtained (it sets no code on these). */
const PG_CONNECTION_MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect/,
  /^Client has encountered a connection error and is not queryable/,
  /^Client was closed and is not queryable/,
];

/** How deep the `cause` chain is followed: drizzle wraps the driver's error once; a few more levels are slack. */
const MAX_CAUSE_DEPTH = 5;

/** `err`, then its `cause`, its cause's `cause`..., objects only, at most MAX_CAUSE_DEPTH of them. */
function* causeChain(err: unknown): Generator<object> {
  for (let e: unknown = err, depth = 0; e && typeof e === "object" && depth < MAX_CAUSE_DEPTH; e = (e as { cause?: unknown }).cause, depth++) yield e;
}

/**
 * The first error of `err`'s `cause` chain (`err` itself first; drizzle wraps the driver's error as
 * `cause`) that carries a SQLSTATE: a `code` of 5 characters, as `pg` and PGlite set it (PostgreSQL
 * appendix A). With the fields PostgreSQL sends that callers use (`constraint`, `detail`), or null.
 */
export function databaseError(err: unknown): { code: string; message?: string; detail?: string; constraint?: string } | null {
  for (const e of causeChain(err)) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && code.length === 5) return e as { code: string; message?: string; detail?: string; constraint?: string };
  }
  return null;
}

/** The SQLSTATE of `err` or of an error in its `cause` chain, e.g. "42P01", or null (see `databaseError`). */
export function sqlState(err: unknown): string | null {
  return databaseError(err)?.code ?? null;
}

/** What kind of transient failure `err` (or an error in its `cause` chain: drizzle wraps driver errors) is, or null. */
export function transientDatabaseFailure(err: unknown): "timeout" | "contention" | "unavailable" | null {
  const chain = [...causeChain(err)];
  if (chain.some((e) => e instanceof Refusal)) return null;
  const state = sqlState(err);
  if (state === "55P03" || state === "57014") return "timeout";
  if (state === "40001" || state === "40P01") return "contention";
  if (state && (TRANSIENT_SQLSTATES.has(state) || TRANSIENT_CLASSES.includes(state.slice(0, 2)))) return "unavailable";
  for (const e of chain) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === "string" && SOCKET_CODES.has(code)) return "unavailable";
    if (typeof message === "string" && PG_CONNECTION_MESSAGES.some((m) => m.test(message))) return "unavailable";
  }
  return null;
}

const MESSAGES = {
  timeout: "the database did not finish this request in time (a lock wait or statement timed out); nothing was changed, retry",
  contention: "the request collided with a concurrent one; nothing was changed, retry",
  unavailable: "the database is not reachable right now; retry",
} as const;

/** How long a client is told to wait after `storage_full`, in ms: freeing disk space takes an operator. */
const STORAGE_FULL_RETRY_AFTER_MS = 30_000;

/** What the database's own errors say when its disk is full (PGlite gives 53100 with this text, and plain errno text below it). */
const NO_SPACE_MESSAGES = [/No space left on device/i, /\bENOSPC\b/, /could not extend file/i];

/**
 * Whether `err` (or an error of its `cause` chain) says the database's disk is full: SQLSTATE 53100
 * disk_full (PostgreSQL and PGlite alike: `could not extend file "base/5/16385": No space left on
 * device`), errno code ENOSPC, or a message with "No space left on device" / "could not extend file".
 */
export function isStorageFull(err: unknown): boolean {
  if (sqlState(err) === "53100") return true;
  for (const e of causeChain(err)) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (code === "ENOSPC") return true;
    if (typeof message === "string" && NO_SPACE_MESSAGES.some((m) => m.test(message))) return true;
  }
  return false;
}

/**
 * `err` as a 503 refusal, or null when it is not a transient database failure: `storage_full`
 * (details.retryAfterMs 30000) when the database's disk is full ({@link isStorageFull}), else
 * `database_busy` (details.retryAfterMs 1000). Either way the transaction was rolled back.
 */
export function refusalForDatabaseError(err: unknown): Refusal | null {
  if (isStorageFull(err) && ![...causeChain(err)].some((e) => e instanceof Refusal)) {
    return new Refusal("storage_full", "the server's database has no disk space left; nothing of this request was stored; retry once the operator freed space", {
      retryAfterMs: STORAGE_FULL_RETRY_AFTER_MS,
    });
  }
  const kind = transientDatabaseFailure(err);
  return kind ? new Refusal("database_busy", MESSAGES[kind], { retryAfterMs: DATABASE_RETRY_AFTER_MS }) : null;
}

/**
 * SQLSTATE 22021 character_not_in_repertoire (a NUL character in a text value: PostgreSQL text
 * cannot hold U+0000) and 22P05 untranslatable_character. A field the request schemas did not
 * guard: the statement failed, nothing of it was stored, and the request is the client's fault.
 */
const UNSTORABLE_TEXT = new Set(["22021", "22P05"]);

/** `err` as a 400 `invalid_request` when the database refused a character of a text value, else null. */
export function refusalForUnstorableText(err: unknown): Refusal | null {
  return UNSTORABLE_TEXT.has(sqlState(err) ?? "")
    ? new Refusal("invalid_request", "a text field holds a character that cannot be stored (NUL)", { reason: "nul_character" })
    : null;
}
