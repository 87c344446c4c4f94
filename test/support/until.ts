/**
 * Polling for an outcome, the way the process and watch tests wait: no assertion on how long
 * anything took, only a generous limit after which the test fails with what it waited for.
 */

/** Polls `check(what)` until it returns something truthy; that value. */
export type Until = <T>(what: string, check: () => T | Promise<T>, timeoutMs?: number) => Promise<NonNullable<T>>;

/**
 * An `until` that calls `check` every `everyMs` milliseconds (after each call settles) for at most
 * `timeoutMs` milliseconds by default (a call may pass its own limit).
 * @throws Error "timed out waiting for <what>" once the limit has passed; whatever `check` throws.
 */
export function poller({ timeoutMs, everyMs }: { timeoutMs: number; everyMs: number }): Until {
  return async (what, check, limitMs = timeoutMs) => {
    const deadline = Date.now() + limitMs;
    for (;;) {
      const value = await check();
      if (value) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, everyMs));
    }
  };
}
