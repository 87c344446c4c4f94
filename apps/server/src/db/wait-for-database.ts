/**
 * Waiting at start for a PostgreSQL that is not up yet (compose starting both at once, a
 * PostgreSQL restart): connection attempts with capped exponential backoff for a bounded time, one
 * line per failed attempt, then one clear error. Only failures that pass by themselves are retried;
 * a wrong password or a missing database fails at once with PostgreSQL's message.
 */
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";

/** Default of TEAMMEM_DB_CONNECT_TIMEOUT_MS: how long a start waits for PostgreSQL, ms. */
export const DEFAULT_DB_CONNECT_TIMEOUT_MS = 30_000;

/** Socket errors of a host that is down, restarting, or not resolvable yet (a container's name before it starts). */
const UNREACHABLE_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ENOTFOUND", "EAI_AGAIN", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "EPIPE"]);
/** SQLSTATE 57P03 cannot_connect_now: "the database system is starting up" / "shutting down" / "in recovery mode". */
const CANNOT_CONNECT_NOW = "57P03";
/** pg's errors (no code) for a server closing the socket before the handshake ends, and for one attempt's own timeout. */
const DROPPED_MESSAGES = new Set(["Connection terminated unexpectedly", "Connection terminated", "Connection terminated due to connection timeout", "timeout expired"]);

/**
 * Whether `err` (from a pg connect) may pass by waiting: an unreachable host, a server starting up
 * or shutting down (57P03), a connection dropped during the handshake. Node reports a host with
 * several addresses as an AggregateError holding one error per address.
 */
export function isRetryableConnectError(err: unknown): boolean {
  if (!err || typeof err !== "object") return false;
  const { code, message, errors } = err as { code?: unknown; message?: unknown; errors?: unknown };
  if (typeof code === "string" && (UNREACHABLE_CODES.has(code) || code === CANNOT_CONNECT_NOW)) return true;
  if (typeof message === "string" && DROPPED_MESSAGES.has(message)) return true;
  return Array.isArray(errors) && errors.length > 0 && errors.every(isRetryableConnectError);
}

/** The database did not accept a connection within the wait; `message` is the whole explanation. */
export class DatabaseUnreachableError extends Error {
  /** Recognised by the CLI's failure message, which prints `message` as it is. */
  readonly code = "TEAMMEM_DB_UNREACHABLE";
}

export interface WaitForDatabaseOptions {
  /** Longest wait from the first attempt, ms; the last attempt starts no later. */
  timeoutMs: number;
  /** Receives one line (no newline) per failed attempt that will be retried, and one when a retried connection succeeds. */
  notice: (line: string) => void;
  /** First pause between attempts, ms (default 250); doubles per attempt up to `maxDelayMs` (default 2000). */
  firstDelayMs?: number;
  maxDelayMs?: number;
}

/** One connection's message, without a stack; an AggregateError's (often empty) message replaced by its first error's. */
function reason(err: unknown): string {
  const e = err as { message?: unknown; errors?: unknown[] };
  if (typeof e?.message === "string" && e.message !== "") return e.message;
  if (Array.isArray(e?.errors) && e.errors.length > 0) return reason(e.errors[0]);
  return String(err);
}

/**
 * Connects to `url` (and disconnects) until it succeeds, retrying only {@link isRetryableConnectError}
 * failures, pausing 250, 500, 1000, 2000, 2000, ... ms between attempts.
 * @returns the number of attempts made (1: PostgreSQL was up)
 * @throws DatabaseUnreachableError after `timeoutMs` of retryable failures, naming the last one,
 *   the time waited and TEAMMEM_DB_CONNECT_TIMEOUT_MS
 * @throws the pg error itself for any other failure (authentication, a missing database, TLS), at once
 */
export async function waitForDatabase(url: string, options: WaitForDatabaseOptions): Promise<number> {
  const started = Date.now();
  const firstDelayMs = options.firstDelayMs ?? 250;
  const maxDelayMs = options.maxDelayMs ?? 2000;
  for (let attempt = 1; ; attempt++) {
    const remainingMs = options.timeoutMs - (Date.now() - started);
    // Each attempt is bounded too, so a host that drops packets cannot hold one attempt past the wait.
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: Math.max(1000, Math.min(5000, remainingMs)) });
    client.on("error", () => undefined); // a failed connect also reports through the promise below
    try {
      await client.connect();
      await client.end().catch(() => undefined);
      if (attempt > 1) options.notice(`teammem-server: the database accepted a connection (attempt ${attempt}, after ${Date.now() - started} ms)`);
      return attempt;
    } catch (err) {
      // Not awaited: after a failed connect pg may have seen its socket end already and never resolve.
      void client.end().catch(() => undefined);
      if (!isRetryableConnectError(err)) throw err;
      const waitedMs = Date.now() - started;
      const leftMs = options.timeoutMs - waitedMs;
      if (leftMs <= 0) {
        throw new DatabaseUnreachableError(
          `cannot reach the database after ${waitedMs} ms and ${attempt} attempts (${reason(err)}); is PostgreSQL running, and is DATABASE_URL right? ` +
            `TEAMMEM_DB_CONNECT_TIMEOUT_MS (now ${options.timeoutMs}) sets how long a start waits`,
        );
      }
      const delayMs = Math.min(firstDelayMs * 2 ** (attempt - 1), maxDelayMs, leftMs);
      options.notice(`teammem-server: database not reachable (${reason(err)}); attempt ${attempt}, retrying in ${delayMs} ms (waited ${waitedMs} of ${options.timeoutMs} ms)`);
      await sleep(delayMs);
    }
  }
}
