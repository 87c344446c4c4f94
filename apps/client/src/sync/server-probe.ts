/**
 * `teammem status`'s one question to the server: is it still the one this folder last synced
 * with, and what is waiting there? Asks for the changes after the stored cursor (one page of at
 * most {@link WAITING_PAGE}: an authenticated read whose reply carries the server's identity and
 * epoch, and refuses a cursor above the server's with `stale_cursor`), with a short timeout and no
 * retry. Never pages further: a full page is "more than" what it holds.
 */
import { ClientError, isNoRoute, namespaceNotFound, NetworkError, ServerError } from "../errors.js";
import type { Api } from "../http/api.js";
import type { SyncState } from "../state/sync-state.js";
import { serverChangeReason } from "./pull.js";

/** How long `status` waits for the server's answer to start (its headers), in ms. */
export const PROBE_TIMEOUT_MS = 2_000;

/**
 * How long `status` waits for the whole reply, headers and body, in ms (try20 F4: a body trickling
 * a byte a second held `status` for the general 120 s reply deadline): a page of
 * {@link WAITING_PAGE} changes at the server's default entry limit is ~6 MiB at most.
 */
export const PROBE_REPLY_DEADLINE_MS = 5_000;

/** Changes `status` asks for at most (each carries its entry's content, so the page stays small). */
export const WAITING_PAGE = 20;

/**
 * What `status` learnt from the server. `checked`: a request was made; `reachable`: it answered
 * (null: not checked); `reconcilePending`: the next sync reconciles (null: unknown); `reason`: why
 * it is pending; `error`: why it could not tell (unreachable, refused, not checked). `waiting`
 * (only when the server answered and no reconciliation is pending): entries changed on the server
 * that this folder does not hold yet (its own pushes left out), counted over the one page asked;
 * `more` when the page of {@link WAITING_PAGE} changes was full: `changes` is then no total (more
 * wait after the page, and a pull cut short holds part of it).
 */
export interface ServerCheck {
  checked: boolean;
  reachable: boolean | null;
  reconcilePending: boolean | null;
  reason?: string;
  error?: string;
  waiting?: { changes: number; more: boolean };
  /**
   * The server's error code when it answered with an error (e.g. `token_revoked`); a code of
   * `isTokenRefusalCode` means it refused the token: `status` then exits 1.
   */
  code?: string;
}

/** Not asked (`--offline`, or no token): `why` says so when given. */
export function notChecked(why?: string): ServerCheck {
  return { checked: false, reachable: null, reconcilePending: null, ...(why ? { error: why } : {}) };
}

/**
 * Asks `api` (built with a short timeout, no retry) whether the server still matches `state`.
 * Never throws for a network, server or refused request: the outcome says what happened.
 */
export async function probeServer(api: Api, state: SyncState, namespace: string): Promise<ServerCheck> {
  try {
    const reply = await api.changes(state.cursor, WAITING_PAGE);
    const reason = serverChangeReason({ state }, reply.server);
    if (reason) return { checked: true, reachable: true, reconcilePending: true, reason };
    // A change at a version this folder's base already has is its own push (or one it pulled): nothing waits.
    const changes = reply.changes.filter((c) => (state.bases[c.path]?.version ?? 0) < c.version).length;
    return { checked: true, reachable: true, reconcilePending: false, waiting: { changes, more: reply.hasMore } };
  } catch (err) {
    if (err instanceof NetworkError) return { checked: true, reachable: false, reconcilePending: null, error: err.reason };
    if (err instanceof ServerError && err.code === "stale_cursor")
      return { checked: true, reachable: true, reconcilePending: true, reason: "the server's cursor is below this folder's (its database was restored or reset)" };
    // The server URL's path is not a teammem API's: nothing is known, whatever the cursor.
    if (isNoRoute(err)) return { checked: true, reachable: true, reconcilePending: null, error: namespaceNotFound(err as ServerError, namespace, false).message, code: "not_found" };
    if (err instanceof ServerError && err.code === "not_found" && state.cursor > 0)
      return { checked: true, reachable: true, reconcilePending: true, reason: "the namespace is gone from the server (its database was reset or replaced)" };
    if (err instanceof ServerError && err.code === "not_found") return { checked: true, reachable: true, reconcilePending: false, waiting: { changes: 0, more: false } };
    if (err instanceof ServerError) return { checked: true, reachable: true, reconcilePending: null, error: err.message, code: err.code };
    if (err instanceof ClientError) return { checked: false, reachable: null, reconcilePending: null, error: err.message };
    throw err;
  }
}
