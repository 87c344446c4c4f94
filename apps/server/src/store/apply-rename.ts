/**
 * Renames in the batch write protocol: the rename operation itself, and a put of an old path that
 * follows the file to its new path. Both run inside the operation's write transaction (the
 * namespace lock held) and are recorded in `renames`, which the change feed and history read.
 */
import { mergeText, pathFoldKey, sha256Hex, type MergePolicy, type OperationResult } from "@teammem/protocol";
import { and, eq } from "drizzle-orm";
import type { Tx } from "../db/database.js";
import { conflicts, renames } from "../db/schema.js";
import { Refusal } from "../errors/refusal.js";
import { checkNewLiveEntry, commitVersion, readHead, readVersionContent, takeCursor, type Head } from "./heads.js";
import { auditMergeRefusal, checkMerged, conflictReason } from "./merge-check.js";
import { readVersionAuthor } from "./version-author.js";
import type { WriteContext } from "./write-context.js";

/** What the transaction decided for one operation (see apply-operation.ts). */
export interface Decision {
  result: OperationResult;
  /** false for refusals that may pass later unchanged (not stored for replay). */
  final: boolean;
  stored?: boolean;
}

/** A refusal that must undo what the transaction wrote so far: thrown to roll back, turned into the result by the caller. */
export class RollbackRefusal extends Error {
  constructor(readonly decision: Decision) {
    super("operation refused after it started writing; rolled back");
  }
}

export interface RenameOp {
  readonly opId: string;
  readonly baseVersion: number;
  readonly content: string;
  readonly merge?: MergePolicy;
  readonly renameFromVersion: number;
}

function refusedOn(opId: string, path: string, refusal: Refusal): Decision {
  return { result: { opId, path, status: "rejected", ...refusal.toBody() }, final: false };
}

/** Whether a merge result may be stored: within the entry limit and free of credentials. */
function storable(ctx: WriteContext, content: string): boolean {
  return checkMerged(ctx, content) === null;
}

/** The new path a rename moved version `version` (its tombstone) of `path` to, or null. */
async function renamedTo(tx: Tx, namespaceId: string, path: string, version: number): Promise<string | null> {
  const [row] = await tx
    .select({ toPath: renames.toPath })
    .from(renames)
    .where(and(eq(renames.namespaceId, namespaceId), eq(renames.fromPath, path), eq(renames.fromVersion, version)))
    .limit(1);
  return row?.toPath ?? null;
}

/** Keeps `content` (an edit that could not be merged) as an open conflict record of `path` at the next cursor. */
async function recordConflict(tx: Tx, ctx: WriteContext, opId: string, path: string, baseVersion: number, headVersion: number, content: string, cursor: number): Promise<string> {
  await takeCursor(tx, ctx.namespace.id, cursor);
  const [row] = await tx
    .insert(conflicts)
    .values({
      namespaceId: ctx.namespace.id,
      path,
      baseVersion,
      headVersion,
      deleted: false,
      content,
      sha256: sha256Hex(content),
      authorId: ctx.author.id,
      authorName: ctx.author.name,
      clientId: ctx.clientId,
      opId,
      cursor,
    })
    .returning({ id: conflicts.id });
  return row!.id;
}

/**
 * Decision table of a rename `from` → `to` (`headTo`: the head of `to`, read under the lock):
 * - `renameFromVersion` above the head of `from`, or `baseVersion` above the head of `to` →
 *   rejected `version_conflict` (transient).
 * - `from` live and unchanged since `renameFromVersion` → its tombstone (kind rename) and the
 *   content at `to` (kind rename): `applied`.
 * - `from` edited since (a teammate's edit) → the edit follows the file: three-way merge of the
 *   old path's base, its head and the content, under the operation's policy: clean → the merge
 *   at `to` (`merged`); overlapping (or a merge too large or holding a credential) → the
 *   teammate's text at `to` and the content as a conflict record there (`conflict`).
 * - `from` already deleted → the content at `to`, no tombstone: like a creation.
 * - `to` live: with the very content that would land → nothing written there (someone made the
 *   same rename); else rejected `version_conflict` (details `{ path, currentVersion }`, transient):
 *   the client pulls that version, merges, and sends a delete and a put instead.
 * Every result names the old path's tombstone (`renamedFrom`). New live entry checks (case,
 * file/folder clash, namespace_full) run after the tombstone, so `a.md` → `A.md` passes; a refusal
 * there rolls the tombstone back ({@link RollbackRefusal}).
 */
export async function decideRename(tx: Tx, ctx: WriteContext, op: RenameOp, from: string, to: string, namespaceCursor: number, headTo: Head | null): Promise<Decision> {
  const nsId = ctx.namespace.id;
  const headFrom = await readHead(tx, nsId, from);
  const fromVersion = headFrom?.version ?? 0;
  const toVersion = headTo?.version ?? 0;
  if (op.renameFromVersion > fromVersion)
    return refusedOn(op.opId, to, new Refusal("version_conflict", `renameFromVersion ${op.renameFromVersion} is newer than the head version ${fromVersion} of the old path`, { path: from, currentVersion: fromVersion }));
  if (op.baseVersion > toVersion)
    return refusedOn(op.opId, to, new Refusal("version_conflict", `baseVersion ${op.baseVersion} is newer than the head version ${toVersion}`, { path: to, currentVersion: toVersion }));

  const fromLive = headFrom !== null && !headFrom.deleted;
  let content = op.content;
  let pending: string | null = null; // content kept as a conflict record at `to`
  let headAuthor: string | undefined;
  if (fromLive && headFrom.version > op.renameFromVersion) {
    headAuthor = await readVersionAuthor(tx, nsId, from, headFrom.version);
    const base = await readVersionContent(tx, nsId, from, op.renameFromVersion);
    const merged = mergeText({ base, server: headFrom.content ?? "", local: op.content, policy: op.merge ?? "conflict" });
    if (merged.clean && storable(ctx, merged.content)) content = merged.content;
    else [content, pending] = [headFrom.content ?? "", op.content];
  }
  const toLive = headTo !== null && !headTo.deleted;
  if (toLive && (headTo.content !== content || pending !== null))
    return refusedOn(op.opId, to, new Refusal("version_conflict", `the new path exists with other content (version ${toVersion}); sync, then send the delete and the write`, { path: to, currentVersion: toVersion }));

  const author = { authorId: ctx.author.id, authorName: ctx.author.name, clientId: ctx.clientId, opId: op.opId };
  let cursor = namespaceCursor;
  let tombstone = fromVersion;
  let tombstoneCursor: number | undefined; // set when this operation writes the tombstone
  if (fromLive) {
    const done = await commitVersion(tx, { namespaceId: nsId, path: from, foldKey: pathFoldKey(from), kind: "rename", content: null, parent: headFrom, baseVersion: null, ...author }, ++cursor);
    tombstone = done.committed.version;
    tombstoneCursor = done.committed.cursor;
  }
  let at: { version: number; sha256: string | null; cursor: number } = { version: toVersion, sha256: headTo?.sha256 ?? null, cursor: headTo?.cursor ?? namespaceCursor };
  if (!toLive) {
    const refusal = await checkNewLiveEntry(tx, ctx, to);
    if (refusal) throw new RollbackRefusal(refusedOn(op.opId, to, refusal));
    const done = await commitVersion(tx, { namespaceId: nsId, path: to, foldKey: pathFoldKey(to), kind: "rename", content, parent: headTo, baseVersion: null, ...author }, ++cursor);
    at = done.committed;
  }
  if (fromLive) await tx.insert(renames).values({ namespaceId: nsId, fromPath: from, fromVersion: tombstone, toPath: to, toVersion: at.version, opId: op.opId });
  const renamedFrom = { path: from, version: tombstone, ...(tombstoneCursor !== undefined ? { cursor: tombstoneCursor } : {}) };
  const base = { opId: op.opId, path: to, renamedFrom };
  if (pending !== null) {
    const conflictCursor = ++cursor;
    const conflictId = await recordConflict(tx, ctx, op.opId, to, op.baseVersion, at.version, pending, conflictCursor);
    return {
      result: { ...base, status: "conflict", conflictId, headVersion: at.version, headSha256: at.sha256, headContent: content, cursor: conflictCursor, headAuthor: headAuthor ?? "" },
      final: true,
    };
  }
  if (content !== op.content)
    return { result: { ...base, status: "merged", version: at.version, sha256: at.sha256!, content, cursor: at.cursor, headAuthor: headAuthor ?? "" }, final: true };
  return { result: { ...base, status: "applied", version: at.version, sha256: at.sha256, deleted: false, cursor: at.cursor }, final: true };
}

/**
 * A put of `path` from base `baseVersion` whose head `head` is the tombstone of a rename: the edit
 * follows the file to its new path when that is live (three-way merge of the old path's base, the
 * new path's head and the content, under `policy`): clean → `merged` at the new path (a new
 * version, kind merge, unless nothing changes); overlapping (or too large, or holding a
 * credential) → a conflict record at the new path. Every result names the old path's tombstone.
 * @returns null when there is nothing to follow (no rename, or its new path is gone): the caller
 *   applies the put to `path` itself.
 */
export async function followRename(
  tx: Tx,
  ctx: WriteContext,
  op: { opId: string; baseVersion: number; content: string; policy: MergePolicy },
  path: string,
  head: Head,
  namespaceCursor: number,
): Promise<Decision | null> {
  const nsId = ctx.namespace.id;
  const to = await renamedTo(tx, nsId, path, head.version);
  if (to === null) return null;
  const target = await readHead(tx, nsId, to);
  if (target === null || target.deleted) return null;
  const headAuthor = await readVersionAuthor(tx, nsId, to, target.version);
  const base = await readVersionContent(tx, nsId, path, op.baseVersion);
  const renamedFrom = { path, version: head.version };
  const merged = mergeText({ base, server: target.content ?? "", local: op.content, policy: op.policy });
  const cursor = namespaceCursor + 1;
  const refused = merged.clean ? checkMerged(ctx, merged.content) : null;
  if (!merged.clean || refused) {
    const conflictId = await recordConflict(tx, ctx, op.opId, to, 0, target.version, op.content, cursor);
    await auditMergeRefusal(tx, ctx, refused, { path: to, conflictId, version: target.version });
    return {
      result: { opId: op.opId, path: to, renamedFrom, status: "conflict", conflictId, headVersion: target.version, headSha256: target.sha256, headContent: target.content, cursor, headAuthor, ...conflictReason(refused) },
      final: true,
    };
  }
  if (merged.content === target.content)
    return { result: { opId: op.opId, path: to, renamedFrom, status: "merged", version: target.version, sha256: target.sha256!, content: merged.content, cursor: target.cursor, headAuthor }, final: true };
  const author = { authorId: ctx.author.id, authorName: ctx.author.name, clientId: ctx.clientId, opId: op.opId };
  const done = await commitVersion(tx, { namespaceId: nsId, path: to, foldKey: pathFoldKey(to), kind: "merge", content: merged.content, parent: target, baseVersion: null, ...author }, cursor);
  const c = done.committed;
  return { result: { opId: op.opId, path: to, renamedFrom, status: "merged", version: c.version, sha256: c.sha256!, content: merged.content, cursor: c.cursor, headAuthor }, final: true };
}
