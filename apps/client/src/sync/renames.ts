/**
 * Renames on the client: a delete and a create of the same (or nearly the same, see
 * `merge/similarity.ts`) content found in one sync travel as one rename operation, so a
 * teammate's concurrent edit of the old path follows the file instead of bringing the old path
 * back. The deleted file's text comes from the base store only (no network: queueing works
 * offline); without it, only identical content pairs.
 */
import type { Operation } from "@teammem/protocol";
import { pairRenames, type RenameCandidate } from "../merge/similarity.js";
import type { TeamScope } from "../scope.js";
import { readBaseContent } from "../state/base-store.js";
import type { OutboxEntry } from "../state/outbox.js";
import type { SyncContext } from "./context.js";

/** The rename operation of an operation that renames, or null. */
export function renameSource(op: Operation): string | null {
  return "renameFrom" in op ? op.renameFrom : null;
}

/** The deleted paths of `bases`' live entries among `paths`, as rename candidates (text from the base store). */
async function deletedCandidates(ctx: SyncContext, paths: readonly string[]): Promise<RenameCandidate[]> {
  const out: RenameCandidate[] = [];
  for (const path of paths) {
    const sha256 = ctx.state.bases[path]?.sha256;
    if (!sha256) continue;
    out.push({ path, sha256, text: await readBaseContent(ctx.layout, sha256) });
  }
  return out;
}

/** Whether `path` has no live base here (a create). */
const isNew = (ctx: SyncContext, path: string) => (ctx.state.bases[path]?.sha256 ?? null) === null;

/**
 * Replaces each pair of a queued delete and a queued create that look like one rename by a rename
 * operation (the create's id, content and base; the delete's path and base version), in the
 * create's place.
 */
export async function combineRenames(ctx: SyncContext, queued: readonly OutboxEntry[]): Promise<OutboxEntry[]> {
  const deletes = queued.flatMap((q) => ("delete" in q.operation ? [q.operation.path] : []));
  const creates = queued.filter((q) => "content" in q.operation && isNew(ctx, q.operation.path));
  if (deletes.length === 0 || creates.length === 0) return [...queued];
  const pairs = pairRenames(
    await deletedCandidates(ctx, deletes),
    creates.map((q) => ({ path: q.operation.path, sha256: q.sha256!, text: "content" in q.operation ? q.operation.content : undefined })),
  );
  if (pairs.length === 0) return [...queued];
  const fromOf = new Map(pairs.map(([from, to]) => [to, from]));
  const moved = new Set(pairs.map(([from]) => from));
  const out: OutboxEntry[] = [];
  for (const q of queued) {
    const op = q.operation;
    if ("delete" in op && moved.has(op.path)) continue;
    const from = fromOf.get(op.path);
    if (from === undefined || !("content" in op)) {
      out.push(q);
      continue;
    }
    out.push({
      ...q,
      operation: {
        opId: op.opId,
        path: op.path,
        baseVersion: op.baseVersion,
        content: op.content,
        ...(op.merge ? { merge: op.merge } : {}),
        renameFrom: from,
        renameFromVersion: ctx.state.bases[from]!.version,
      },
    });
  }
  return out;
}

/**
 * The file of `scope` that `path` (deleted here, its base text `baseText`) was renamed to: a file
 * without a live base whose content pairs with it, or null.
 */
export function localRenameOf(ctx: SyncContext, scope: TeamScope, path: string, baseText: string): string | null {
  const sha256 = ctx.state.bases[path]?.sha256;
  if (!sha256) return null;
  // A new file has no live base, so it was read (the stat cache holds only files equal to their base).
  const created = [...scope.files.values()].flatMap((f) => (isNew(ctx, f.path) && f.content !== undefined ? [{ path: f.path, sha256: f.sha256, text: f.content }] : []));
  return pairRenames([{ path, sha256, text: baseText }], created)[0]?.[1] ?? null;
}
