/**
 * Reconnect delays: capped exponential backoff with full jitter (AWS Architecture Blog,
 * "Exponential Backoff And Jitter"): attempt n waits a uniformly random time in
 * [0, min(capMs, baseMs * 2^n)), so clients dropped together by a server restart come back spread
 * over the window instead of all at once.
 */

export interface BackoffOptions {
  /** Upper bound of the first wait in ms (default 500). */
  readonly baseMs?: number;
  /** No wait is longer than this, in ms (default 30 000). */
  readonly capMs?: number;
}

/**
 * The wait in ms before attempt `attempt` (0 for the first retry after a failure).
 * @param random a uniform number in [0, 1) (default Math.random); tests pass a fixed one.
 */
export function backoffDelayMs(attempt: number, options: BackoffOptions = {}, random: () => number = Math.random): number {
  const base = options.baseMs ?? 500;
  const cap = options.capMs ?? 30_000;
  // 2^attempt overflows to Infinity for large attempts; min() keeps the cap.
  const ceiling = Math.min(cap, base * 2 ** Math.max(0, attempt));
  return Math.floor(random() * ceiling);
}
