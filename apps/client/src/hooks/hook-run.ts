/**
 * What every agent hook run shares: a time budget, an HTTP client that gives up when the budget is
 * spent, waiting a moment for the folder's lock, and the rule that a hook never fails the agent for
 * teammem's own trouble (unreachable server, no token, a folder not set up: exit 0 with a note on
 * stderr). Only a deliberate refusal exits 2 (Claude Code then shows stderr to the agent).
 */
import { setTimeout as sleep } from "node:timers/promises";
import { ClientError, NetworkError } from "../errors.js";
import { createApi, type Api } from "../http/api.js";
import type { Config } from "../state/config.js";
import { LockBusyError } from "../state/lock.js";
import type { CommandContext } from "../commands/common.js";
import { findToken } from "../commands/common.js";

/** Longest one HTTP request of a hook may take, in ms. */
const REQUEST_TIMEOUT_MS = 3_000;
/** How long a hook waits for another teammem command to release the folder, in ms. */
const LOCK_WAIT_MS = 5_000;

/** Exit code that makes Claude Code show stderr to the agent (and, before a tool call, refuse it). */
export const EXIT_TELL_AGENT = 2;

/**
 * `api`'s calls, refused with a NetworkError once `deadline` (epoch ms) has passed, so a hook's
 * network work ends within its budget plus one request.
 */
function withDeadline(api: Api, deadline: number): Api {
  const wrapped: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(api)) {
    wrapped[key] =
      typeof value === "function"
        ? (...args: unknown[]) =>
            Date.now() > deadline
              ? Promise.reject(new NetworkError(api.server, "the hook's time budget is spent; the rest stays queued"))
              : (value as (...a: unknown[]) => Promise<unknown>).apply(api, args)
        : value;
  }
  return wrapped as unknown as Api;
}

/** An API client for a hook: short timeouts, no retries, nothing started after `budgetMs`. */
export function hookApi(config: Config, token: string, budgetMs: number): Api {
  const api = createApi({ server: config.server, namespace: config.namespace, token, timeoutMs: REQUEST_TIMEOUT_MS, retry: { limit: 0 } });
  return withDeadline(api, Date.now() + budgetMs);
}

/** The token for a hook run (TEAMMEM_TOKEN, then the stored one), or undefined. */
export function hookToken(ctx: CommandContext, config: Config): string | undefined {
  try {
    return findToken({}, ctx, config);
  } catch {
    return undefined; // a malformed TEAMMEM_TOKEN: reported as "no token"
  }
}

/** Runs `work`, retrying while another command holds the folder's lock, for up to {@link LOCK_WAIT_MS}. */
export async function withLockWait<T>(work: () => Promise<T>): Promise<T> {
  const until = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      return await work();
    } catch (err) {
      if (!(err instanceof LockBusyError) || Date.now() > until) throw err;
      await sleep(200);
    }
  }
}

/**
 * Runs a hook body; whatever teammem error it throws becomes a note on stderr and exit 0, so the
 * agent is never blocked by teammem's own trouble. The note never holds file content.
 */
export async function hookGuard(ctx: CommandContext, body: () => Promise<number>): Promise<number> {
  try {
    return await body();
  } catch (err) {
    const message = err instanceof ClientError ? err.message : `unexpected error: ${err instanceof Error ? err.message : String(err)}`;
    ctx.io.stderr(`teammem hook: ${message}\n`);
    return 0;
  }
}
