/**
 * The write protocol of one batch operation `{opId, path, baseVersion, content | delete}` (or a
 * rename, `renameFrom`: apply-rename.ts): validation and re-scan, then — in one transaction holding
 * the namespace lock — idempotency, fast-forward, three-way merge, or a conflict record. See the
 * decision table on {@link decide}.
 */
import { mergeText, pathFoldKey, sha256Hex, type Operation, type OperationResult } from "@teammem/protocol";
import { recordAuditEvent } from "../audit/events.js";
import type { Db, Tx } from "../db/database.js";
import { conflicts, versions } from "../db/schema.js";
import { and, eq, gt } from "drizzle-orm";
import { checkNewLiveEntry, commitVersion, readVersionContent, takeCursor, type CommittedVersion, type Head } from "./heads.js";
import { inWriteTransaction } from "./namespace-transaction.js";
import { applyFastForward } from "./fast-forward.js";
import { readStoredOperation, replayResult, requestHash, storeOperation } from "./idempotency.js";
import { Refusal } from "../errors/refusal.js";
import { auditMergeRefusal, checkMerged, conflictReason, type MergeRefusal } from "./merge-check.js";
import { auditSecretRefusal, checkContent, checkWellFormed, SecretRefusal } from "./validate-content.js";
import { auditPathSecret, checkWritePath } from "./path-secrets.js";
import { decideRename, followRename, RollbackRefusal, type Decision } from "./apply-rename.js";
import { readVersionAuthor } from "./version-author.js";
import type { WriteContext } from "./write-context.js";


function rejected(opId: string, path: string, refusal: Refusal): OperationResult {
  return { opId, path, status: "rejected", ...refusal.toBody() };
}

/**
 * The refusal of a delete of a path that never existed (no version at all; a tombstone is an
 * existing entry, deleted already, and its delete is `applied`). Stored for replay like any
 * final result, so a resent operation gets the same answer.
 */
export function nothingToDelete(): Refusal {
  return new Refusal("not_found", "no entry at this path: it never existed, so there is nothing to delete");
}

/** {@link nothingToDelete} as the result of batch operation `opId`. */
export function nothingToDeleteResult(opId: string, path: string): OperationResult {
  return rejected(opId, path, nothingToDelete());
}

/** The request hash of a batch operation (its id excluded; the merge policy only when given, so older hashes stay valid). */
export function operationHash(op: Operation): string {
  if ("delete" in op) return requestHash("delete", [op.path, op.baseVersion]);
  const put = [op.path, op.baseVersion, op.content, ...(op.merge ? [op.merge] : [])];
  if ("renameFrom" in op) return requestHash("rename", [...put, op.renameFrom, op.renameFromVersion]);
  return requestHash("put", put);
}

/** The checked old path of a rename (NFC, clean), or its refusal: `invalid_path`, `secret_detected`, or `invalid_request` when it is the new path. */
function renameSource(ctx: WriteContext, op: Operation, to: string): { from: string | null } | { refusal: Refusal } {
  if (!("renameFrom" in op)) return { from: null };
  const checked = checkWritePath(ctx, op.renameFrom, "existing");
  if ("refusal" in checked) return checked;
  if (checked.path === to) return { refusal: new Refusal("invalid_request", "a rename needs two different paths (renameFrom equals path)", { reason: "rename_to_itself" }) };
  return { from: checked.path };
}

/**
 * Applies one operation atomically in its own transaction.
 * @returns the operation's result; never throws for a refusal (only for database failures).
 *   A replayed `opId` gets its stored result verbatim (an `opId` reused for a different request:
 *   `invalid_request`, details.reason `op_id_reused`).
 *
 * A string of the operation that is not well-formed UTF-16 (a lone surrogate): `invalid_utf8`
 * (details.field), decided before anything else and never stored.
 *
 * Which results are stored: every applied/merged/conflict result, and `secret_detected` (so a
 * replay neither rescans nor audits twice). Refusals that depend on the request alone (path,
 * encoding, size) are recomputed on a replay; refusals that depend on state that may change
 * (namespace_full, path_case_conflict, base version ahead) are not stored, so they can pass later.
 */
export async function applyOperation(db: Db, ctx: WriteContext, op: Operation): Promise<OperationResult> {
  // A lone surrogate cannot reach the database (jsonb refuses it): refused first, never stored.
  const illFormed = checkWellFormed(op);
  if (illFormed) return rejected(illFormed.opId, illFormed.path, illFormed.refusal);
  const nsId = ctx.namespace.id;
  const hash = operationHash(op);
  const checked = checkWritePath(ctx, op.path, "delete" in op ? "existing" : "new");
  const refusal: Refusal | null =
    "refusal" in checked ? checked.refusal : "delete" in op ? null : checkContent(ctx, op.content);
  if (refusal || !("path" in checked)) {
    // An operation applied before a limit or rule changed still replays its original result.
    const prior = await readStoredOperation(db, nsId, op.opId);
    if (prior) return replayResult(prior, op.opId, op.path, hash);
    if (!("path" in checked)) await auditPathSecret(db, ctx, checked.refusal); // a path holding a credential: audited, never stored
    if (!(refusal instanceof SecretRefusal) || !("path" in checked)) return rejected(op.opId, op.path, refusal!);
    const result = rejected(op.opId, op.path, refusal);
    // The stored result and its audit event commit together: a stored refusal replays without
    // auditing again, so one stored without its event would never be audited.
    return db.transaction(async (tx) => {
      const stored = await storeOperation(tx, nsId, op.opId, hash, result);
      if (!stored.inserted) return replayResult(stored, op.opId, op.path, hash);
      await auditSecretRefusal(tx, ctx, checked.path, refusal.audit);
      return result;
    });
  }
  const path = checked.path;
  const source = renameSource(ctx, op, path);
  if ("refusal" in source) {
    const prior = await readStoredOperation(db, nsId, op.opId);
    if (prior) return replayResult(prior, op.opId, op.path, hash);
    await auditPathSecret(db, ctx, source.refusal);
    return rejected(op.opId, op.path, source.refusal);
  }

  if (source.from === null) {
    const fast = await applyFastForward(db, ctx, op, path, hash);
    if (fast) return fast;
  }
  try {
    return await inWriteTransaction(db, ctx, op.opId, path, async (tx, cursor, { stored, head }) => {
      if (stored) return replayResult(stored, op.opId, op.path, hash);
      const decision =
        source.from !== null && "renameFrom" in op
          ? await decideRename(tx, ctx, op, source.from, path, cursor, head)
          : await decide(tx, ctx, op, path, hash, cursor, head);
      if (decision.final && !decision.stored) await storeOperation(tx, nsId, op.opId, hash, decision.result);
      return decision.result;
    });
  } catch (err) {
    if (err instanceof RollbackRefusal) return err.decision.result;
    throw err;
  }
}

/**
 * Whether a version of `path` after `baseVersion` has content `sha256` (null: is a tombstone).
 * One range read of the (namespace, path, version) index.
 */
async function madeSinceBase(tx: Tx, namespaceId: string, path: string, baseVersion: number, sha256: string | null): Promise<boolean> {
  const same = sha256 === null ? versions.deleted : eq(versions.sha256, sha256);
  const [row] = await tx
    .select({ version: versions.version })
    .from(versions)
    .where(and(eq(versions.namespaceId, namespaceId), eq(versions.path, path), gt(versions.version, baseVersion), same))
    .limit(1);
  return row !== undefined;
}

/**
 * The result of an operation that leaves the head `head` (version `headVersion`, null when the path
 * never existed) as it stands: a delete of a deleted path, a put of the head's content.
 * Its cursor is the head's, or `namespaceCursor` when there is no head.
 */
export function unchangedResult(opId: string, path: string, head: Omit<Head, "content"> | null, headVersion: number, namespaceCursor: number): OperationResult {
  return {
    opId,
    path,
    status: "applied",
    version: headVersion,
    sha256: head && !head.deleted ? head.sha256 : null,
    deleted: !head || head.deleted,
    cursor: head?.cursor ?? namespaceCursor,
  };
}

/**
 * Decision table (head = current version of the path; "live" = exists and not a tombstone):
 * - baseVersion > head version → rejected `version_conflict` (transient; details.currentVersion).
 * - baseVersion = head version (fast-forward) → `applied`: a new version, or none when the content
 *   equals the head (a put of identical content, a delete of a deleted path); a delete of a path
 *   that never existed → rejected `not_found` (stored for replay).
 * - baseVersion < head version:
 *   - put, head is the tombstone of a rename made after the base, its new path live → the edit
 *     follows the file there (`followRename` in apply-rename.ts): `merged` or `conflict` at the
 *     new path, the result naming the old path in `renamedFrom`.
 *   - put, head is a tombstone made after the base → the edit wins: `merged` with the incoming
 *     content as a new version; the delete stays in history.
 *   - put equal to the head → `applied` at the head version, nothing new.
 *   - put, head live → three-way merge (`mergeText` of the protocol, the operation's `merge` policy,
 *     default `conflict`; base content "" for base 0 or a tombstone base): clean → `merged` (a new
 *     version, kind "merge", unless the merge equals the head); overlapping (or a merge that would
 *     be too large or hold a credential: `code` entry_too_large / merge_holds_credential with
 *     findings, audited, store/merge-check.ts) → `conflict`: the head stays, the incoming content is
 *     kept as a conflict record at a new cursor. Both results name the head's author (`headAuthor`).
 *   - delete, head already a tombstone → `applied` (nothing new).
 *   - delete, head unchanged in content since the base → `applied` (a tombstone version).
 *   - delete, head edited since the base → `conflict` (record with deleted=true): the edit stays.
 *   (Before the last four: a put whose content, or a delete whose tombstone, is in the path's history
 *   after the base → `merged` with the head, nothing new: the change was made already, e.g. this
 *   very operation replayed after its stored result was pruned (store/operation-retention.ts), and
 *   what teammates did since stands; re-applying it would undo their edits.)
 * Creating a path that exists (baseVersion 0, live head) is thus a concurrent edit from an empty base.
 * `namespaceCursor` is the locked cursor; the one change this transaction makes takes the next.
 */
export async function decide(tx: Tx, ctx: WriteContext, op: Operation, path: string, hash: string, namespaceCursor: number, head: Head | null): Promise<Decision> {
  const nsId = ctx.namespace.id;
  const headVersion = head?.version ?? 0;
  const live = head !== null && !head.deleted;
  const incoming = "delete" in op ? null : op.content;
  const cursor = namespaceCursor + 1;
  const author = { authorId: ctx.author.id, authorName: ctx.author.name, clientId: ctx.clientId, opId: op.opId };
  const base = { namespaceId: nsId, path, foldKey: pathFoldKey(path), parent: head, ...author };

  const unchanged = (h: Head | null): Decision => ({ result: unchangedResult(op.opId, path, h, headVersion, namespaceCursor), final: true });
  const write = async (kind: "write" | "delete" | "merge", content: string | null, baseVersion: number | null, result: (c: CommittedVersion) => OperationResult): Promise<Decision> => {
    const done = await commitVersion(tx, { ...base, kind, content, baseVersion }, cursor, { opId: op.opId, requestSha256: hash, result });
    return { result: done.result!, final: true, stored: true };
  };
  const applied = (kind: "write" | "delete", content: string | null, baseVersion: number | null) =>
    write(kind, content, baseVersion, (c) => ({ opId: op.opId, path, status: "applied", version: c.version, sha256: c.sha256, deleted: c.deleted, cursor: c.cursor }));
  const merged = (content: string, headAuthor?: string) =>
    write("merge", content, op.baseVersion, (c) => ({
      opId: op.opId,
      path,
      status: "merged",
      version: c.version,
      sha256: c.sha256!,
      content,
      cursor: c.cursor,
      ...(headAuthor === undefined ? {} : { headAuthor }),
    }));
  const conflict = async (h: Head, headAuthor: string, refused: MergeRefusal | null = null): Promise<Decision> => {
    await takeCursor(tx, nsId, cursor);
    const [row] = await tx
      .insert(conflicts)
      .values({
        namespaceId: nsId,
        path,
        baseVersion: op.baseVersion,
        headVersion: h.version,
        deleted: incoming === null,
        content: incoming,
        sha256: incoming === null ? null : sha256Hex(incoming),
        ...author,
        cursor,
      })
      .returning({ id: conflicts.id });
    await recordAuditEvent(tx, {
      teamId: ctx.namespace.teamId,
      actor: ctx.author,
      kind: "conflict_recorded",
      namespace: ctx.namespace.name,
      path,
      conflictId: row!.id,
      version: h.version,
      clientId: ctx.clientId,
    });
    await auditMergeRefusal(tx, ctx, refused, { path, conflictId: row!.id, version: h.version });
    return {
      result: { opId: op.opId, path, status: "conflict", conflictId: row!.id, headVersion: h.version, headSha256: h.sha256, headContent: h.content, cursor, headAuthor, ...conflictReason(refused) },
      final: true,
    };
  };
  const guardNewLiveEntry = async (): Promise<Decision | null> => {
    const refusal = await checkNewLiveEntry(tx, ctx, path);
    return refusal ? { result: rejected(op.opId, op.path, refusal), final: false } : null;
  };

  if (op.baseVersion > headVersion) {
    return {
      result: rejected(
        op.opId,
        op.path,
        new Refusal("version_conflict", `baseVersion ${op.baseVersion} is newer than the head version ${headVersion}`, { currentVersion: headVersion }),
      ),
      final: false,
    };
  }

  if (op.baseVersion === headVersion) {
    if (incoming === null) return live ? applied("delete", null, null) : head === null ? { result: nothingToDeleteResult(op.opId, op.path), final: true } : unchanged(head);
    if (live && head.content === incoming) return unchanged(head);
    if (!live) {
      const refusal = await guardNewLiveEntry();
      if (refusal) return refusal;
    }
    return applied("write", incoming, null);
  }

  // baseVersion < headVersion: someone else wrote since the base.
  if (!live) {
    if (incoming === null) return unchanged(head);
    // A teammate renamed the file meanwhile: the edit follows it to the new path.
    const policy = ("merge" in op && op.merge) || "conflict";
    const followed = head && (await followRename(tx, ctx, { opId: op.opId, baseVersion: op.baseVersion, content: incoming, policy }, path, head, namespaceCursor));
    if (followed) return followed;
    const refusal = await guardNewLiveEntry();
    return refusal ?? merged(incoming, await readVersionAuthor(tx, nsId, path, headVersion));
  }
  if (incoming !== null && head.content === incoming) return unchanged(head);
  const keepHead = async (): Promise<Decision> => ({
    result: {
      opId: op.opId,
      path,
      status: "merged",
      version: head.version,
      sha256: head.sha256!,
      content: head.content!,
      cursor: head.cursor,
      headAuthor: await readVersionAuthor(tx, nsId, path, head.version),
    },
    final: true,
  });
  // Already in history since the base (the operation's stored result was pruned, or a teammate made
  // the same change): what came after it stands, nothing is applied again.
  if (await madeSinceBase(tx, nsId, path, op.baseVersion, incoming === null ? null : sha256Hex(incoming))) return keepHead();
  const baseContent = await readVersionContent(tx, nsId, path, op.baseVersion);
  if (incoming === null) return head.content === baseContent ? applied("delete", null, op.baseVersion) : conflict(head, await readVersionAuthor(tx, nsId, path, head.version));
  const headAuthor = await readVersionAuthor(tx, nsId, path, head.version);
  const outcome = mergeText({ base: baseContent, server: head.content ?? "", local: incoming, policy: ("merge" in op && op.merge) || "conflict" });
  if (!outcome.clean) return conflict(head, headAuthor);
  if (outcome.content === head.content) return keepHead();
  // Each edit passed the scan alone; together they can hold a credential (store/merge-check.ts).
  const refused = checkMerged(ctx, outcome.content);
  if (refused) return conflict(head, headAuthor, refused);
  return merged(outcome.content, headAuthor);
}
