/**
 * The one send path: everything the sync engine sends from this machine (operations' content,
 * paths and opIds, the namespace, the client id, block reports' fields) passes through here
 * immediately before its request, so what leaves is what is on disk now, scanned now:
 * - a queued put or rename that was never sent re-reads its file: gone → a delete (nothing at all
 *   when the server never had the path), changed → the current content, unchanged → as queued; the
 *   rewritten operation replaces the queued one in the outbox (same opId and place: the server never
 *   saw that opId);
 * - an operation that may have been sent already (its opId is in `outbox-sent.log`, see
 *   `state/outbox.ts`) is immutable: it is replayed exactly as queued (the server answers its
 *   stored result, or applies it if the request never arrived), and the file's newer content or its
 *   deletion is queued after it as a new operation with a new opId, in the same sync (the next
 *   round of `sync.ts`, on the base the replay's result gave) (try21 F3);
 * - content is scanned again when it changed since it was queued or was queued under another rule
 *   set ({@link RULE_SET}); paths, opIds, the namespace and the client id are scanned every time;
 * - content over the server's limits (GET /v1/server) is refused here with the server's message.
 * What has a finding does not leave: the operation is held back as `queueChanges` holds back a
 * file, a block report is not sent, and a namespace or client id holding a credential stops the
 * sync before any request ({@link checkIdentityFields}).
 */
import { createHash } from "node:crypto";
import { bodyTooLargeMessage, entryTooLargeMessage, sha256Hex, type BatchRequest, type BatchResponse, type BlockReport, type Operation, type OperationResult } from "@teammem/protocol";
import { RULES, scan } from "@teammem/scanner";
import { ClientError } from "../errors.js";
import { readTeamFile } from "../local/team-files.js";
import { firstMarkerLine } from "../merge/markers.js";
import { displayPath } from "../state/layout.js";
import { dequeue, replaceQueued, type OutboxEntry, type QueuedOperation } from "../state/outbox.js";
import { saveHeldBack, saveRejected } from "../state/reports.js";
import type { SyncContext } from "./context.js";
import { scanTeamFile, warnHeldBack } from "./scan-team-file.js";

/**
 * The scanner's rule set, as a short hash of every rule's id, prefixes, pattern and check: an
 * operation records it when queued, and one queued under another rule set is scanned again.
 */
export const RULE_SET: string = createHash("sha256")
  .update(JSON.stringify(RULES.map((r) => [r.id, r.prefixes, r.pattern.source, r.pattern.flags, r.validate?.toString() ?? ""])))
  .digest("hex")
  .slice(0, 16);

/** The rule ids of the findings in `text` (none: []); no values. */
function rulesIn(text: string): string[] {
  return scan(text, { allowMarker: false }).map((f) => f.ruleId);
}

/**
 * Refuses to talk to the server at all when the namespace or the client id (both in every
 * request) holds a credential.
 * @throws ClientError naming the field and the rule, never the value.
 */
export function checkIdentityFields(ctx: Pick<SyncContext, "config">): void {
  for (const [field, value] of [
    ["namespace", ctx.config.namespace],
    ["client id", ctx.config.clientId],
  ] as const) {
    const rules = rulesIn(value);
    if (rules.length > 0)
      throw new ClientError(`the ${field} in .teammem/config.json holds a credential (${rules.join(", ")}); nothing was sent. Fix the config (teammem init) and sync again`);
  }
}

/** What became of a queued operation at send time. */
export type Prepared =
  | { readonly kind: "send"; readonly queued: QueuedOperation; readonly bytes: number }
  /** Left the outbox without being sent (held back, nothing to send any more). */
  | { readonly kind: "dropped" }
  /** Left the outbox refused here over the server's limits: `result` is what the server would have answered (counted as rejected). */
  | { readonly kind: "refused"; readonly result: OperationResult }
  /** Stays queued, not sent now (its file cannot be read safely right now). */
  | { readonly kind: "kept" };

/** UTF-8 bytes of `op` as it appears in a batch body. */
export function operationBytes(op: Operation): number {
  return Buffer.byteLength(JSON.stringify(op), "utf8");
}

/** UTF-8 bytes of a batch body holding no operations (the envelope), for splitting by bytes. */
export function envelopeBytes(ctx: SyncContext): number {
  return Buffer.byteLength(JSON.stringify(batchBody(ctx, [])), "utf8");
}

function batchBody(ctx: SyncContext, operations: Operation[]): BatchRequest {
  return { clientId: ctx.config.clientId, ...(ctx.state.server ? { server: ctx.state.server } : {}), operations };
}

/**
 * Prepares one queued operation for sending (see the module comment): the file re-read, the
 * operation rewritten in the outbox when the file changed, content and names scanned, limits
 * checked. Held-back and refused files are recorded (and saved) as `queueChanges` records them.
 */
export async function prepareForSend(ctx: SyncContext, q: QueuedOperation, sent: ReadonlySet<string>): Promise<Prepared> {
  const op = q.entry.operation;
  const wasSent = sent.has(op.opId);
  const markersRecorded = ctx.reports.conflicts.some((c) => c.path === op.path && c.markers === true);
  const now = queuedAtSendTime(q.entry, "content" in op && !wasSent ? await readTeamFile(ctx.layout, op.path) : null, markersRecorded, wasSent);
  if (now.kind === "unreadable") return { kind: "kept" };
  if (now.kind === "gone") {
    await dequeue(q);
    ctx.warn(`${displayPath(op.path)} was deleted before it was sent: not sent`);
    return { kind: "dropped" };
  }
  if (now.kind === "markers") {
    // Conflict markers written since: not sent until they are gone (the next sync queues it then).
    await dequeue(q);
    return { kind: "dropped" };
  }
  const entry = now.entry;
  if (now.rescan && "content" in entry.operation && (await heldBackNow(ctx, q, entry.operation.path, entry.operation.content, entry.sha256!))) return { kind: "dropped" };
  const operation = entry.operation;
  // Names and ids leave with every operation, whatever its content.
  if (rulesIn(operation.opId).length > 0) {
    // Only a hand-edited outbox holds such an id: the file is queued again under a new one.
    await dequeue(q);
    ctx.warn(`a queued operation for ${displayPath(operation.path)} has an id holding a credential: dropped, not sent`);
    return { kind: "dropped" };
  }
  if ([operation.path, ...("renameFrom" in operation ? [operation.renameFrom] : [])].some((text) => rulesIn(text).length > 0)) {
    if ("content" in operation && (await heldBackNow(ctx, q, operation.path, operation.content, sha256Hex(operation.content)))) return { kind: "dropped" };
    await dequeue(q);
    ctx.warn(`a queued operation names a path holding a credential (${displayPath("renameFrom" in operation ? operation.renameFrom : operation.path)}): not sent`);
    return { kind: "dropped" };
  }
  const limits = ctx.limits;
  if (limits && "content" in operation) {
    const bytes = Buffer.byteLength(operation.content, "utf8");
    if (bytes > limits.maxEntryBytes) return refuseHere(ctx, q, entry, "entry_too_large", entryTooLargeMessage(bytes, limits.maxEntryBytes));
  }
  const bytes = operationBytes(operation);
  if (limits && envelopeBytes(ctx) + bytes > limits.maxBodyBytes) return refuseHere(ctx, q, entry, "body_too_large", bodyTooLargeMessage(limits.maxBodyBytes));
  const queued = entry === q.entry ? q : await replaceQueued(q, entry);
  return { kind: "send", queued, bytes };
}

/** What a queued operation becomes at send time, given its file as it is now (see {@link queuedAtSendTime}). */
export type AtSendTime =
  /** The file cannot be read safely right now (symlink, not UTF-8...): stays queued, not sent now. */
  | { readonly kind: "unreadable" }
  /** Deleted before it was sent, and the server never had the path: nothing to send. */
  | { readonly kind: "gone" }
  /** Conflict markers were written into the file since it was queued: not sent until they are gone. */
  | { readonly kind: "markers" }
  /** Send `entry` (the queued one, or rewritten: the current content, or a delete); `rescan`: its content must be scanned first. */
  | { readonly kind: "send"; readonly entry: OutboxEntry; readonly rescan: boolean };

/**
 * What the queued `entry` becomes when it is sent now (no side effects): the one rule of the send
 * path, shared by the sync ({@link prepareForSend}) and its forecast (`sync --dry-run`). A put or
 * rename re-reads its file: gone → a delete (nothing when the server never had the path), changed →
 * the current content, unchanged → as queued; content changed since, or queued under another rule
 * set, must be scanned again.
 * An operation that may have been sent is never rewritten (its opId is spent): it is sent as queued,
 * scanned again only when queued under another rule set.
 * @param file the operation's file now (`readTeamFile`); null for a delete or a sent operation (nothing to read).
 * @param markersRecorded a conflict with markers is recorded for the path.
 * @param sent the operation may have reached the server already (`outbox-sent.log`).
 */
export function queuedAtSendTime(entry: OutboxEntry, file: Awaited<ReturnType<typeof readTeamFile>> | null, markersRecorded: boolean, sent: boolean): AtSendTime {
  const op = entry.operation;
  if (sent) return { kind: "send", entry, rescan: "content" in op && entry.ruleSet !== RULE_SET };
  if (!("content" in op) || file === null) return { kind: "send", entry, rescan: false };
  if (file.kind === "unsafe") return { kind: "unreadable" };
  if (file.kind === "absent") {
    const gone = goneOperation(op);
    if (gone === null) return { kind: "gone" };
    return { kind: "send", entry: { operation: gone, sha256: null, queuedAt: entry.queuedAt, ruleSet: RULE_SET }, rescan: false };
  }
  if (file.sha256 === entry.sha256 && entry.ruleSet === RULE_SET) return { kind: "send", entry, rescan: false };
  if (markersRecorded && firstMarkerLine(file.content) !== null) return { kind: "markers" };
  return { kind: "send", entry: { operation: { ...op, content: file.content }, sha256: file.sha256, queuedAt: entry.queuedAt, ruleSet: RULE_SET }, rescan: true };
}

/** What a never-sent put or rename becomes when its file is gone at send time (same opId: never seen by the server); null: nothing to send. */
function goneOperation(op: Operation): Operation | null {
  if ("renameFrom" in op) return { opId: op.opId, path: op.renameFrom, baseVersion: op.renameFromVersion, delete: true };
  if (op.baseVersion === 0) return null;
  return { opId: op.opId, path: op.path, baseVersion: op.baseVersion, delete: true };
}

/** Scans `content` and `path`; with a finding, holds the file back (recorded, warned) and drops `q`. */
async function heldBackNow(ctx: SyncContext, q: QueuedOperation, path: string, content: string, sha256: string): Promise<boolean> {
  const { findings, pathFindings } = scanTeamFile(path, content, ctx.scanKey.fingerprintKey, ctx.scanKey.allowFingerprints);
  if (findings.length === 0 && pathFindings.length === 0) return false;
  await dequeue(q);
  ctx.reports.heldBack = ctx.reports.heldBack.filter((h) => h.path !== path);
  ctx.reports.heldBack.push({ path, sha256, findings, ...(pathFindings.length > 0 ? { pathFindings } : {}), reported: false });
  ctx.reports.heldBack.sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0));
  warnHeldBack(ctx, path, sha256, { findings, pathFindings });
  await saveHeldBack(ctx.layout, ctx.reports.heldBack);
  return true;
}

/** An operation over the server's limits: recorded as rejected here (not resent until the file changes), dropped, answered as the server would. */
async function refuseHere(ctx: SyncContext, q: QueuedOperation, entry: OutboxEntry, code: "entry_too_large" | "body_too_large", message: string): Promise<Prepared> {
  const { path, opId } = entry.operation;
  ctx.reports.rejected = ctx.reports.rejected.filter((r) => r.path !== path);
  ctx.reports.rejected.push({ path, opId, sha256: entry.sha256, code, message, retry: false, local: true });
  ctx.warn(`not sent ${displayPath(path)}: ${code}: ${message}`);
  await saveRejected(ctx.layout, ctx.reports.rejected);
  await dequeue(q);
  return { kind: "refused", result: { opId, path, status: "rejected", code, message } };
}

/**
 * Sends prepared operations as one batch, with the client id and the server identity the bases
 * come from (a server of another epoch refuses it with `stale_cursor`).
 * @throws ClientError when the client id or namespace holds a credential; NetworkError/ServerError as `Api.batch`.
 */
export function sendBatch(ctx: SyncContext, operations: Operation[]): Promise<BatchResponse> {
  checkIdentityFields(ctx);
  return ctx.api.batch(batchBody(ctx, operations));
}

/**
 * Sends a block report unless one of its fields holds a credential (then it is not sent and the
 * caller is told so).
 * @returns whether it was sent.
 */
export async function sendBlockReport(ctx: SyncContext, report: BlockReport): Promise<boolean> {
  checkIdentityFields(ctx);
  const fields = [report.clientId ?? "", report.path, report.sha256, ...report.findings.flatMap((f) => [f.ruleId, f.label, f.fingerprint ?? ""])];
  if (fields.some((text) => rulesIn(text).length > 0)) return false;
  await ctx.api.blockReport(report);
  return true;
}
