/**
 * When the client sends a request again, for ky's `retry` option. The protocol's error registry
 * decides: a reply whose code is marked `retry` (rate_limited, database_busy, server_shutting_down,
 * internal_error; a proxy's bodyless 502/504 counts as internal_error) is retried, any other
 * refusal is not; a request that reached no server (refused, reset) is retried too. Every request
 * the client makes may be sent twice: writes carry an `opId` the server answers once.
 * The wait is the reply's `Retry-After` (429 and 503), waited for up to `maxRetryAfterMs` (a
 * rate limit's window is often a minute: a sync is not failed for it) with a line through `onWait`
 * saying so; else exponential backoff with jitter (0.3 s, 0.6 s, 1.2 s, ... each between half and
 * all of that), at most `maxDelayMs`. A reply asking for a longer wait than `maxRetryAfterMs` is
 * not retried (the caller reports it, what was queued stays queued, and the next sync tries again).
 */
import type { RetryOptions as KyRetryOptions } from "ky";
import { HTTPError } from "ky";
import { codeForStatus, ERROR_CODES, ERRORS, ErrorBody, type ErrorCode } from "@teammem/protocol";
import { MAX_ERROR_REPLY_BYTES, readReplyText } from "./read-reply.js";

export interface RetryOptions {
  /** Retries after the first attempt (default 3); 0 sends each request once. */
  readonly limit?: number;
  /** Longest wait before one retry, in ms (default 30 000): a longer `Retry-After` is not waited for. */
  readonly maxDelayMs?: number;
  /** Longest `Retry-After` (429, 503) waited for, in ms (default 120 000); a longer one is not retried. */
  readonly maxRetryAfterMs?: number;
  /** Told before each wait for a `Retry-After` (ms, and the reply's code), so a long wait is not silent. */
  readonly onWait?: (waitMs: number, code: ErrorCode) => void;
}

const DEFAULT_LIMIT = 3;
const DEFAULT_MAX_DELAY_MS = 30_000;
const DEFAULT_MAX_RETRY_AFTER_MS = 120_000;
/** Statuses that can carry a code marked `retry`, plus a proxy's 502 and 504. */
const RETRY_STATUSES = [...new Set([...ERROR_CODES.filter((c) => ERRORS[c].retry).map((c) => ERRORS[c].http), 502, 504])].filter(
  (s): s is number => s !== null,
);

/** Time an error body has to arrive once its headers have, in ms; a slower one is abandoned and the status decides. */
const ERROR_REPLY_DEADLINE_MS = 10_000;

/**
 * The registry code of an error reply: the body's, else the generic code of its status (also when
 * the body passes {@link MAX_ERROR_REPLY_BYTES} or {@link ERROR_REPLY_DEADLINE_MS}: reading stops there).
 */
export async function codeOf(response: Response): Promise<{ code: ErrorCode; message: string; details?: Record<string, unknown> }> {
  let json: unknown;
  try {
    json = JSON.parse(await readReplyText(response, MAX_ERROR_REPLY_BYTES, performance.now() + ERROR_REPLY_DEADLINE_MS, ERROR_REPLY_DEADLINE_MS));
  } catch {
    json = undefined;
  }
  const parsed = ErrorBody.safeParse(json);
  if (parsed.success) return parsed.data;
  return { code: codeForStatus(response.status), message: `HTTP ${response.status} ${response.statusText}` };
}

/** `Retry-After` in ms (delta-seconds or an HTTP date); undefined when absent or unreadable. */
function retryAfterMs(response: Response): number | undefined {
  const raw = response.headers.get("retry-after");
  if (raw === null) return undefined;
  const ms = /^\d+$/.test(raw.trim()) ? Number(raw) * 1000 : Date.parse(raw) - Date.now();
  return Number.isFinite(ms) ? Math.max(0, ms) : undefined;
}

/** ky's retry option for the policy above. */
export function kyRetry(options: RetryOptions = {}): KyRetryOptions {
  const maxDelayMs = options.maxDelayMs ?? DEFAULT_MAX_DELAY_MS;
  const maxRetryAfterMs = Math.max(maxDelayMs, options.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS);
  return {
    limit: options.limit ?? DEFAULT_LIMIT,
    methods: ["get", "put", "post", "delete"],
    statusCodes: RETRY_STATUSES,
    afterStatusCodes: [429, 503],
    maxRetryAfter: maxRetryAfterMs,
    backoffLimit: maxDelayMs,
    jitter: (delay) => delay * (0.5 + Math.random() / 2),
    shouldRetry: async ({ error }) => {
      if (!(error instanceof HTTPError)) return undefined; // unreachable server: ky's default (retry; not after a timeout)
      if (error.response.status < 400) return false; // a redirect (never followed): asking again gets the same
      const { code } = await codeOf(error.response.clone());
      if (!ERRORS[code].retry) return false;
      const after = [429, 503].includes(error.response.status) ? retryAfterMs(error.response) : undefined;
      if (after !== undefined && after > maxRetryAfterMs) return false;
      if (after !== undefined) options.onWait?.(after, code);
      return undefined; // ky waits Retry-After (429, 503) or backs off
    },
  };
}
