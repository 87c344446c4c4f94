/**
 * What every agent hook run shares: a time budget, an HTTP client that gives up when the budget is
 * spent, waiting a moment for the folder's lock, and the rule that a hook never fails the agent for
 * teammem's own trouble (unreachable server, no token, a folder not set up: exit 0 with a note on
 * stderr). Only a deliberate refusal exits 2 (Claude Code then shows stderr to the agent).
 */
import { setTimeout as sleep } from "node:timers/promises";
import { ClientError, localFailure } from "../errors.js";
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
 * An API client for a hook: short timeouts, no retries, and every request over (answered, cut off
 * or not sent) within `budgetMs` from now, so the agent never kills the hook mid-sync (try16 F6).
 */
export function hookApi(config: Config, token: string, budgetMs: number): Api {
  return createApi({ server: config.server, namespace: config.namespace, token, timeoutMs: REQUEST_TIMEOUT_MS, retry: { limit: 0 }, budgetMs });
}

/**
 * The token for a hook run (TEAMMEM_TOKEN, then the stored one), or why there is none to use for
 * the memory folder `root`: no token, or a TEAMMEM_TOKEN refused here (empty, whitespace), said as
 * such rather than as "no token" (try21 F1).
 */
export function hookToken(ctx: CommandContext, config: Config, root: string): { token: string } | { problem: string } {
  try {
    const token = findToken({}, ctx, config);
    if (token) return { token };
  } catch (err) {
    if (!(err instanceof ClientError)) throw err;
    return { problem: `${root}: ${err.message}` };
  }
  return { problem: `no token for ${root} (set TEAMMEM_TOKEN or run teammem init --token)` };
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
    const message = err instanceof ClientError ? err.message : (localFailure(err)?.message ?? `unexpected error: ${err instanceof Error ? err.message : String(err)}`);
    ctx.io.stderr(`teammem hook: ${message}\n`);
    return 0;
  }
}
