/**
 * Push, second half: sends the outbox in batches (deletes first) and stores each result before
 * removing its operation. Before each request its opIds are marked as possibly sent (durably, once
 * per batch): from then on those operations are never rewritten (`state/outbox.ts`). An operation whose result was never stored (crash, lost reply) stays queued and is
 * sent again with the same opId; the server answers with the stored result. The cursor moves over
 * this folder's own changes when they directly follow it, so the next pull does not fetch them back.
 */
import type { OperationResult } from "@teammem/protocol";
import { NetworkError, ProtocolError, ServerError } from "../errors.js";
import { compactSent, dequeue, dequeueAll, listOutbox, markSent, type QueuedOperation } from "../state/outbox.js";
import { displayPath } from "../state/layout.js";
import { saveConflicts, saveRejected } from "../state/reports.js";
import { saveSyncState } from "../state/sync-state.js";
import { applyResult } from "./apply-result.js";
import type { SyncContext } from "./context.js";
import { envelopeBytes, prepareForSend, sendBatch } from "./send-path.js";
import { healReusedOpId, isOpIdReused } from "./sent-operations.js";

export interface FlushOutcome {
  /** Results received (and stored), in order: also those of the batches before a failure. */
  results: OperationResult[];
  /** Set when a batch could not be delivered; its operations and the later ones stay queued. */
  error?: NetworkError | ServerError;
}

/**
 * The queued operations with every delete before every put (each group in queue order), so a
 * folder turned into a file of the same name (or a file renamed to another case) frees its path
 * before the put needs it; a put first would be refused with path_type_conflict / path_case_conflict.
 * Safe because the outbox holds at most one operation per path (`queueChanges` defers a path with
 * an operation still queued), so no two operations on one path swap places.
 */
function deletesFirst(queued: readonly QueuedOperation[]): QueuedOperation[] {
  const isDelete = (q: QueuedOperation) => "delete" in q.entry.operation;
  return [...queued.filter(isDelete), ...queued.filter((q) => !isDelete(q))];
}

/** Largest batch size the server allows according to an error's `details.limit`, if it names one. */
function namedLimit(err: ServerError): number | undefined {
  const limit = err.details?.["limit"];
  return typeof limit === "number" && Number.isInteger(limit) && limit > 0 ? limit : undefined;
}

/**
 * Sends every queued operation. When a batch cannot be delivered (server unreachable or refusing),
 * stops there and returns the results acknowledged so far with `error` set; what was not answered
 * stays queued.
 * @param outbox the outbox's operations in queue order, when the caller has just listed them
 *   (saves reading every operation file again); default: listed here.
 */
export async function flushOutbox(ctx: SyncContext, outbox?: readonly QueuedOperation[]): Promise<FlushOutcome> {
  const outcome: FlushOutcome = { results: [] };
  const queued = deletesFirst(outbox ?? (await listOutbox(ctx.layout)));
  // No request is in flight: the marks of operations no longer queued are dropped here.
  const sent = await compactSent(ctx.layout, queued);
  /** Cursors of changes this folder already holds (see `ownChangeCursor`): the cursor moves over them. */
  const own = new Set<number>();
  /** Answered operations whose results are applied in memory but not saved yet (see {@link saveEvery}). */
  let unsaved: QueuedOperation[] = [];
  const every = saveEvery(ctx);
  // Results are stored before their operations leave the outbox.
  const save = async () => {
    if (unsaved.length === 0) return;
    await saveSyncState(ctx.layout, ctx.state);
    await saveRejected(ctx.layout, ctx.reports.rejected);
    await saveConflicts(ctx.layout, ctx.reports.conflicts);
    await dequeueAll(ctx.layout, unsaved);
    unsaved = [];
  };
  try {
    return await flushQueued(ctx, queued, sent, outcome, own, (answered) => {
      unsaved.push(...answered);
      return unsaved.length >= every ? save() : Promise.resolve();
    });
  } finally {
    await save();
  }
}

/**
 * How many answered operations may wait before the state is saved and they leave the outbox: at
 * least one batch, and a quarter of the tracked entries, so the saves of a flush of N operations
 * write O(N) bytes in all (saving the whole state, one base per entry, after every batch of 100 is
 * quadratic), while a crash resends at most that many operations (the server replays their stored
 * results).
 */
function saveEvery(ctx: SyncContext): number {
  return Math.max(ctx.batchSize, Math.ceil(Object.keys(ctx.state.bases).length / 4));
}

async function flushQueued(
  ctx: SyncContext,
  queued: QueuedOperation[],
  sent: Set<string>,
  outcome: FlushOutcome,
  own: Set<number>,
  answeredBatch: (answered: QueuedOperation[]) => Promise<void>,
): Promise<FlushOutcome> {
  let i = 0;
  while (i < queued.length) {
    const { chunk, consumed, refused } = await nextChunk(ctx, queued, i, sent);
    outcome.results.push(...refused);
    if (chunk.length === 0) {
      i += consumed;
      continue;
    }
    // Durably marked before the request leaves: from here on these operations may be on the server.
    const unmarked = chunk.map((q) => q.entry.operation.opId).filter((id) => !sent.has(id));
    await markSent(ctx.layout, unmarked);
    for (const id of unmarked) sent.add(id);
    let results: OperationResult[];
    try {
      ({ results } = await sendBatch(ctx, chunk.map((q) => q.entry.operation)));
    } catch (err) {
      // Each retry below prepares the operations again: their files may have changed meanwhile.
      if (err instanceof ServerError && err.code === "batch_too_large") {
        const limit = namedLimit(err) ?? Math.floor(chunk.length / 2);
        if (limit >= 1 && limit < chunk.length) {
          ctx.batchSize = limit;
          continue;
        }
      }
      if (err instanceof ServerError && err.code === "body_too_large") {
        if (chunk.length > 1) {
          ctx.batchSize = Math.ceil(chunk.length / 2);
          continue;
        }
        outcome.results.push(await refuseLocally(ctx, chunk[0]!, err));
        i += consumed;
        continue;
      }
      if (err instanceof ServerError && err.code === "forbidden") {
        // The token may read but not write (a reader): no retry can succeed, so every queued
        // operation leaves the outbox as rejected; an edited file is sent again (and refused) once it changes.
        for (const q of queued.slice(i)) outcome.results.push(await refuseForbidden(ctx, q));
        return outcome;
      }
      if (err instanceof NetworkError || err instanceof ServerError) return { ...outcome, error: err };
      throw err;
    }
    const byOpId = new Map(results.map((r) => [r.opId, r]));
    const answered: QueuedOperation[] = [];
    for (const q of chunk) {
      const result = byOpId.get(q.entry.operation.opId);
      if (!result) continue; // unanswered: stays queued, sent again next time
      if (isOpIdReused(result) && (await healReusedOpId(ctx, q.entry.operation.path, result.opId))) {
        // An older client's rewrite of an operation the server had applied (try21 F3): the base
        // moved to what that opId wrote; the file is queued again as a new operation.
        answered.push(q);
        continue;
      }
      await applyResult(ctx, q, result);
      const ownCursor = ownChangeCursor(ctx, result);
      if (ownCursor !== undefined) own.add(ownCursor);
      const tombstoneCursor = ownRenameTombstoneCursor(q, result);
      if (tombstoneCursor !== undefined) own.add(tombstoneCursor);
      outcome.results.push(result);
      answered.push(q);
    }
    if (answered.length === 0) throw new ProtocolError(ctx.api.server, "POST batch (no result for any operation)");
    while (own.has(ctx.state.cursor + 1)) ctx.state.cursor++;
    await answeredBatch(answered);
    i += consumed;
  }
  return outcome;
}

/**
 * The next batch from `queued[start]` on, each operation prepared by the send path (re-read,
 * scanned, checked against the limits): at most `ctx.batchSize` operations and, with the server's
 * limits known, at most its body limit in bytes. Operations the send path dropped leave `queued`;
 * prepared ones replace theirs in it (a retry prepares them again). `consumed`: how many of
 * `queued` from `start` the batch covers (including operations kept back for now); `refused`: the
 * results of operations refused here over the server's limits (left `queued`).
 */
async function nextChunk(
  ctx: SyncContext,
  queued: QueuedOperation[],
  start: number,
  sent: ReadonlySet<string>,
): Promise<{ chunk: QueuedOperation[]; consumed: number; refused: OperationResult[] }> {
  const chunk: QueuedOperation[] = [];
  const refused: OperationResult[] = [];
  const maxBytes = ctx.limits?.maxBodyBytes ?? Infinity;
  let bytes = envelopeBytes(ctx);
  let j = start;
  while (j < queued.length && chunk.length < ctx.batchSize) {
    const prepared = await prepareForSend(ctx, queued[j]!, sent);
    if (prepared.kind === "send") {
      // Separator commas between operations count too.
      const size = prepared.bytes + (chunk.length > 0 ? 1 : 0);
      if (chunk.length > 0 && bytes + size > maxBytes) break;
      queued[j] = prepared.queued;
      chunk.push(prepared.queued);
      bytes += size;
    } else if (prepared.kind === "dropped" || prepared.kind === "refused") {
      if (prepared.kind === "refused") refused.push(prepared.result);
      queued.splice(j, 1);
      continue;
    }
    j++;
  }
  return { chunk, consumed: j - start, refused };
}

/**
 * The cursor of `result` when the change feed's entry there is something this folder already
 * holds, so the cursor may move over it (only ever one step at a time from the stored cursor, so a
 * teammate's change in between stops it): a version of this path the base has reached, or a
 * conflict record (it changes no entry). Not for an "applied" no-op on an absent entry (version 0):
 * its cursor is the namespace's, i.e. possibly someone else's change.
 */
function ownChangeCursor(ctx: SyncContext, result: OperationResult): number | undefined {
  if (result.status === "rejected") return undefined;
  if (result.status === "conflict") return result.cursor;
  if (result.version === 0) return undefined;
  return (ctx.state.bases[result.path]?.version ?? 0) >= result.version ? result.cursor : undefined;
}

/**
 * The cursor of the old path's tombstone that this folder's own rename `q` wrote (the server names
 * it in `renamedFrom.cursor` only then): a change this folder already holds, as the new path's
 * version is. Never for a put that followed a teammate's rename (that tombstone is theirs).
 */
function ownRenameTombstoneCursor(q: QueuedOperation, result: OperationResult): number | undefined {
  if (result.status === "rejected" || !("renameFrom" in q.entry.operation)) return undefined;
  return result.renamedFrom?.path === q.entry.operation.renameFrom ? result.renamedFrom.cursor : undefined;
}

/** An operation the token may not make (read-only): recorded as rejected with `forbidden`, dropped from the outbox. */
async function refuseForbidden(ctx: SyncContext, q: QueuedOperation): Promise<OperationResult> {
  const { path, opId } = q.entry.operation;
  const message = `your token is read-only (reader): local edits to ${displayPath(path)} are not sent`;
  ctx.reports.rejected = ctx.reports.rejected.filter((r) => r.path !== path);
  ctx.reports.rejected.push({ path, opId, sha256: q.entry.sha256, code: "forbidden", message, retry: false });
  ctx.warn(message);
  await saveRejected(ctx.layout, ctx.reports.rejected);
  await dequeue(q);
  return { opId, path, status: "rejected", code: "forbidden", message };
}

/** An operation too large for any request the server accepts: recorded as rejected, dropped from the outbox; its result as rejected. */
async function refuseLocally(ctx: SyncContext, q: QueuedOperation, err: ServerError): Promise<OperationResult> {
  const { path, opId } = q.entry.operation;
  ctx.reports.rejected = ctx.reports.rejected.filter((r) => r.path !== path);
  ctx.reports.rejected.push({ path, opId, sha256: q.entry.sha256, code: err.code, message: err.serverMessage, retry: false });
  ctx.warn(`rejected ${displayPath(path)}: ${err.code}: ${err.serverMessage}`);
  await saveRejected(ctx.layout, ctx.reports.rejected);
  await dequeue(q);
  return { opId, path, status: "rejected", code: err.code, message: err.serverMessage };
}
