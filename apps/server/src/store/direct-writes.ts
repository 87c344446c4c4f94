/**
 * Writes that do not merge: compare-and-set of one entry, restore of an old version, resolution of
 * a conflict record. Each runs in one transaction holding the namespace lock and refuses by
 * throwing a {@link Refusal} (a stable code, never content).
 */
import { pathFoldKey, type AppliedResult, type WriteResponse as WriteReply } from "@teammem/protocol";
import { and, eq, sql } from "drizzle-orm";
import type { z } from "zod";
import { recordAuditEvent } from "../audit/events.js";
import type { Db, Tx } from "../db/database.js";
import { conflicts, versions } from "../db/schema.js";
import { checkNewLiveEntry, commitVersion, readHead, type Head, type VersionKind } from "./heads.js";
import { inNamespaceTransaction } from "./namespace-transaction.js";
import { readStoredOperation, requestHash, storeOperation } from "./idempotency.js";
import { Refusal } from "../errors/refusal.js";
import { nothingToDelete } from "./apply-operation.js";
import { auditSecretRefusal, checkContent, SecretRefusal, type PathUse } from "./validate-content.js";
import { auditPathSecret, checkWritePath } from "./path-secrets.js";
import type { WriteContext } from "./write-context.js";

type Applied = z.infer<typeof AppliedResult>;
/** The version a write produced; the route adds the server identity. */
type WriteResponse = Omit<WriteReply, "server">;

function refuse(refusal: Refusal | null): void {
  if (refusal) throw refusal;
}

/** Throws the content's refusal, if any, after auditing a secret hit. */
async function refuseContent(db: Db, ctx: WriteContext, path: string, content: string): Promise<void> {
  const refusal = checkContent(ctx, content);
  if (!refusal) return;
  if (refusal instanceof SecretRefusal) await auditSecretRefusal(db, ctx, path, refusal.audit);
  throw refusal;
}

/** The NFC path, or throws `invalid_path`, or `secret_detected` (audited) for a path holding a credential. */
async function validPath(db: Db, ctx: WriteContext, raw: string, use: PathUse = "new"): Promise<string> {
  const checked = checkWritePath(ctx, raw, use);
  if ("path" in checked) return checked.path;
  await auditPathSecret(db, ctx, checked.refusal);
  throw checked.refusal;
}

function headResult(path: string, head: Head | null, namespaceCursor: number): WriteResponse {
  return {
    path,
    version: head?.version ?? 0,
    deleted: !head || head.deleted,
    sha256: head && !head.deleted ? head.sha256 : null,
    cursor: head?.cursor ?? namespaceCursor,
  };
}

/**
 * Makes `content` (null: a tombstone) the new head of `path` unless it equals the head already.
 * Checks case clash and the entry limit when the path becomes live.
 */
export async function writeHead(
  tx: Tx,
  ctx: WriteContext,
  path: string,
  head: Head | null,
  namespaceCursor: number,
  content: string | null,
  kind: VersionKind,
  opId: string | null,
): Promise<WriteResponse> {
  const live = head !== null && !head.deleted;
  if (content === null ? !live : live && head.content === content) return headResult(path, head, namespaceCursor);
  if (content !== null && !live) refuse(await checkNewLiveEntry(tx, ctx, path));
  const version = {
    namespaceId: ctx.namespace.id,
    path,
    foldKey: pathFoldKey(path),
    kind,
    content,
    parent: head,
    baseVersion: null,
    authorId: ctx.author.id,
    authorName: ctx.author.name,
    clientId: ctx.clientId,
    opId,
  };
  const { committed: c } = await commitVersion(tx, version, namespaceCursor + 1);
  return { path, version: c.version, deleted: c.deleted, sha256: c.sha256, cursor: c.cursor };
}

/**
 * Compare-and-set: writes `content` (null: delete) only when `baseVersion` is the head version
 * (0: the path never existed). Writing the head's own content changes nothing and succeeds
 * whatever the (older) base, so a retry after a lost response gets the same answer.
 * @throws Refusal invalid_path | entry_too_large | secret_detected (audited) |
 *   version_conflict (details `{ currentVersion }`) | path_case_conflict | namespace_full |
 *   not_found (a delete of a path that never existed).
 */
export async function putEntry(db: Db, ctx: WriteContext, rawPath: string, baseVersion: number, content: string | null): Promise<WriteResponse> {
  const path = await validPath(db, ctx, rawPath, content === null ? "existing" : "new");
  if (content !== null) await refuseContent(db, ctx, path, content);
  return inNamespaceTransaction(db, ctx, async (tx, cursor) => {
    const head = await readHead(tx, ctx.namespace.id, path);
    if (content === null && head === null) throw nothingToDelete();
    const currentVersion = head?.version ?? 0;
    // A retried write whose effect is already the head (e.g. after a lost response) succeeds again.
    const alreadyThere = content === null ? !head || head.deleted : head !== null && !head.deleted && head.content === content;
    if (baseVersion !== currentVersion && alreadyThere && baseVersion < currentVersion) return headResult(path, head, cursor);
    if (baseVersion !== currentVersion) {
      throw new Refusal("version_conflict", `baseVersion ${baseVersion} is not the current version ${currentVersion}; read the entry and write again`, {
        currentVersion,
      });
    }
    return writeHead(tx, ctx, path, head, cursor, content, content === null ? "delete" : "write", null);
  });
}

function appliedResult(opId: string, w: WriteResponse): Applied {
  return { opId, path: w.path, status: "applied", version: w.version, sha256: w.sha256, deleted: w.deleted, cursor: w.cursor };
}

/** Replays a stored result for `opId`, or refuses an id reused for a different request. */
async function replayed(db: Db | Tx, ctx: WriteContext, opId: string, hash: string): Promise<Applied | null> {
  const stored = await readStoredOperation(db, ctx.namespace.id, opId);
  if (!stored) return null;
  if (stored.requestSha256 !== hash || stored.result.status !== "applied") {
    throw new Refusal("invalid_request", "opId was already used for a different operation", { reason: "op_id_reused" });
  }
  return stored.result;
}

/**
 * Writes the content of version `version` of `path` as a new head version (kind restore), also
 * when the path is deleted now; restoring a tombstone version deletes. Idempotent by `opId`.
 * @throws Refusal invalid_path | not_found (no such version) | path_case_conflict | namespace_full | invalid_request (opId reused).
 */
export async function restoreVersion(db: Db, ctx: WriteContext, opId: string, rawPath: string, version: number): Promise<Applied> {
  const path = await validPath(db, ctx, rawPath);
  const hash = requestHash("restore", [path, version]);
  const prior = await replayed(db, ctx, opId, hash);
  if (prior) return prior;
  return inNamespaceTransaction(db, ctx, async (tx, cursor) => {
    const twin = await replayed(tx, ctx, opId, hash);
    if (twin) return twin;
    const [target] = await tx
      .select({ content: versions.content, deleted: versions.deleted })
      .from(versions)
      .where(and(eq(versions.namespaceId, ctx.namespace.id), eq(versions.path, path), eq(versions.version, version)));
    if (!target) throw new Refusal("not_found", `no version ${version} at this path`);
    const head = await readHead(tx, ctx.namespace.id, path);
    const written = await writeHead(tx, ctx, path, head, cursor, target.deleted ? null : (target.content ?? ""), "restore", opId);
    const result = appliedResult(opId, written);
    await storeOperation(tx, ctx.namespace.id, opId, hash, result);
    await recordAuditEvent(tx, {
      teamId: ctx.namespace.teamId,
      actor: ctx.author,
      kind: "entry_restored",
      namespace: ctx.namespace.name,
      path,
      version,
      resultVersion: written.version,
      clientId: ctx.clientId,
    });
    return result;
  });
}

/**
 * Resolves conflict record `conflictId`: writes `content` (null: delete) as a new head version
 * (kind resolve) when `baseVersion` is the head, and marks the record resolved with that version.
 * Idempotent by `opId`.
 * @throws Refusal not_found | already_exists (resolved before, details `{ resolvedVersion }`) |
 *   version_conflict (details `{ currentVersion }`) | entry_too_large | secret_detected |
 *   path_case_conflict | namespace_full | invalid_request (opId reused).
 */
export async function resolveConflict(
  db: Db,
  ctx: WriteContext,
  conflictId: string,
  opId: string,
  baseVersion: number,
  content: string | null,
): Promise<Applied> {
  const hash = requestHash("resolve", [conflictId, baseVersion, content]);
  const prior = await replayed(db, ctx, opId, hash);
  if (prior) return prior;
  const [record] = await db
    .select({ path: conflicts.path })
    .from(conflicts)
    .where(and(eq(conflicts.namespaceId, ctx.namespace.id), eq(conflicts.id, conflictId)));
  if (!record) throw new Refusal("not_found", "no such conflict record in this namespace");
  if (content !== null) await refuseContent(db, ctx, record.path, content);
  return inNamespaceTransaction(db, ctx, async (tx, cursor) => {
    const twin = await replayed(tx, ctx, opId, hash);
    if (twin) return twin;
    const [state] = await tx.select({ status: conflicts.status, resolvedVersion: conflicts.resolvedVersion }).from(conflicts).where(eq(conflicts.id, conflictId));
    if (state?.status === "resolved") {
      throw new Refusal("already_exists", "this conflict is already resolved", { resolvedVersion: state.resolvedVersion });
    }
    const head = await readHead(tx, ctx.namespace.id, record.path);
    const currentVersion = head?.version ?? 0;
    if (baseVersion !== currentVersion) {
      throw new Refusal("version_conflict", `baseVersion ${baseVersion} is not the current version ${currentVersion}`, { currentVersion });
    }
    const written = await writeHead(tx, ctx, record.path, head, cursor, content, "resolve", opId);
    await tx
      .update(conflicts)
      .set({ status: "resolved", resolvedVersion: written.version, resolvedAt: sql`now()` })
      .where(eq(conflicts.id, conflictId));
    const result = appliedResult(opId, written);
    await storeOperation(tx, ctx.namespace.id, opId, hash, result);
    return result;
  });
}
