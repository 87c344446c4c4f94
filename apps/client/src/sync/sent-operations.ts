/**
 * Operations that reached the server without their result reaching this folder (the process was
 * killed, Ctrl-C, a hook timeout, a connection cut after the request left: try21 F3):
 * - the pull meets their effect in the change feed before the push replays them: a change that is
 *   the effect of a queued operation this client may have sent ({@link ownQueuedChange}) moves the
 *   base and leaves the working file alone (the file's later edit is not a teammate's conflict);
 * - an older client rewrote such an operation under its spent opId, which the server refuses with
 *   `invalid_request` / `op_id_reused`: the server's history names the version that opId wrote, the
 *   base moves there and the file is queued again as a new operation ({@link healReusedOpId}),
 *   never recorded as refused content; a folder already holding such a rejection heals at its
 *   next sync ({@link healReusedOpIdRecords}).
 */
import type { Change, Operation, OperationResult } from "@teammem/protocol";
import { NetworkError, ServerError } from "../errors.js";
import { displayPath } from "../state/layout.js";
import type { QueuedOperation } from "../state/outbox.js";
import { saveRejected } from "../state/reports.js";
import { saveSyncState } from "../state/sync-state.js";
import { moveBase } from "./bases.js";
import type { SyncContext } from "./context.js";
import { renameSource } from "./renames.js";

type Incoming = Pick<Change, "path" | "version" | "deleted" | "sha256">;

/** Whether `change` is what `op` (queued with content hash `sha256`) writes at `change.path`. */
function writes(op: Operation, sha256: string | null, change: Incoming): boolean {
  if (renameSource(op) === change.path) return change.deleted; // the tombstone a rename leaves at its old path
  if (op.path !== change.path) return false;
  return "delete" in op ? change.deleted : !change.deleted && change.sha256 === sha256;
}

/** The opId that wrote version `version` of `path`, from the server's history; undefined when it cannot be asked or has none. */
async function writerOf(ctx: SyncContext, path: string, version: number): Promise<string | undefined> {
  try {
    return (await ctx.api.history(path)).versions.find((v) => v.version === version)?.opId ?? undefined;
  } catch (err) {
    if (err instanceof NetworkError || err instanceof ServerError) return undefined;
    throw err;
  }
}

/**
 * Whether the pulled `change` is the effect of the queued `q` (this folder's own operation, sent
 * but not acknowledged): `q` marked as sent and writing exactly that; or `q` queued by an older
 * client (no send log) and the server's history says its opId wrote that version. Ask only for a
 * path changed here too (the history is one request).
 * @returns "replay": the operation is what the server holds (its replay answers the stored
 *   result); "spent": its opId wrote that version but the operation was rewritten since, so it can
 *   never be sent (drop it: the file is queued again as a new operation); null: not ours.
 */
export async function ownQueuedChange(ctx: SyncContext, q: QueuedOperation | undefined, sent: ReadonlySet<string>, change: Incoming): Promise<"replay" | "spent" | null> {
  if (!q) return null;
  const op = q.entry.operation;
  if (sent.has(op.opId)) return writes(op, q.entry.sha256, change) ? "replay" : null;
  if (q.entry.sendsLogged) return null; // never sent: the marks precede every request
  if ((await writerOf(ctx, change.path, change.version)) !== op.opId) return null;
  return writes(op, q.entry.sha256, change) ? "replay" : "spent";
}

/** Whether `result` refuses an opId already used for a different operation. */
export function isOpIdReused(result: Pick<OperationResult, "status"> & { code?: string; details?: Record<string, unknown> }): boolean {
  return result.status === "rejected" && result.code === "invalid_request" && result.details?.["reason"] === "op_id_reused";
}

/**
 * `opId` (this client's, so its first form was sent by this folder) already wrote a version of
 * `path`: the base moves to that version (unless it is past it already), so the file's content is
 * queued again as a new operation on top of it. Nothing is recorded as rejected. The caller saves.
 * @returns whether the server's history named the version or a conflict record of that opId
 *   (false: no trace of it, or the server refused; null: the server was not reached).
 */
export async function healReusedOpId(ctx: SyncContext, path: string, opId: string): Promise<boolean | null> {
  let history;
  try {
    history = await ctx.api.history(path);
  } catch (err) {
    if (err instanceof NetworkError) return null;
    if (err instanceof ServerError) return false;
    throw err;
  }
  const written = history.versions.find((v) => v.opId === opId);
  if (!written) return history.conflicts.some((c) => c.opId === opId);
  await moveBase(ctx, path, { version: written.version, sha256: written.deleted ? null : written.sha256 }, null);
  ctx.warn(`${displayPath(path)}: an earlier form of its queued change reached the server (version ${written.version}); the file as it is now is sent as a new version`);
  return true;
}

/**
 * Folders left by an older client with rejections `op_id_reused` (try21 F3: the newer edit of a file
 * whose first send was applied but never acknowledged): each is healed ({@link healReusedOpId})
 * and its record dropped, so the file is queued again by this sync. Call before the pull.
 */
export async function healReusedOpIdRecords(ctx: SyncContext): Promise<void> {
  const due = ctx.reports.rejected.filter((r) => r.local !== true && isOpIdReused({ status: "rejected", code: r.code, ...(r.details ? { details: r.details } : {}) }));
  if (due.length === 0) return;
  const healed = new Set<string>();
  for (const r of due) {
    const found = await healReusedOpId(ctx, r.path, r.opId);
    if (found === null) break; // not reached: one deadline, not one per record; the next sync heals
    if (found) healed.add(r.path);
  }
  if (healed.size === 0) return;
  ctx.reports.rejected = ctx.reports.rejected.filter((r) => !(healed.has(r.path) && due.includes(r)));
  await saveSyncState(ctx.layout, ctx.state);
  await saveRejected(ctx.layout, ctx.reports.rejected);
}
