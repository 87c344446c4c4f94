/**
 * What the client does with the server's result for one queued operation. The base moves only
 * when the local file matches what the server now holds, or once the server's version is merged
 * into it: a `merged` result is written (or, when the file was edited again since it was sent,
 * merged into it); a `conflict` result is merged into the working file like a pulled change
 * (`merge-local.ts`): conflict markers when the edits overlap, your side saved whole in
 * `.teammem/conflicts/`, and the server's record is closed once the file is settled and synced.
 */
import { ERRORS, type OperationResult } from "@teammem/protocol";
import { UnsafeLocalPath, readTeamFile, removeTeamFile, writeTeamFile } from "../local/team-files.js";
import { displayPath, displayRelative } from "../state/layout.js";
import type { QueuedOperation } from "../state/outbox.js";
import { applyMoved, isMoved } from "./apply-moved.js";
import { moveBase, versionText } from "./bases.js";
import { replaceGuard, type SyncContext } from "./context.js";
import { mergeIntoWorkingFile, saveConflictCopy, type ServerVersion } from "./merge-local.js";

/** A local path that became unsafe is only reported (the next sync tries again). */
function unsafe(ctx: SyncContext, path: string, err: unknown): void {
  if (!(err instanceof UnsafeLocalPath)) throw err;
  ctx.warn(`${displayPath(path)}: not updated: ${err.reason}`);
}

/**
 * Applies `result` (for `op`) to the files, the bases and the reports held by `ctx`. The caller
 * saves state and reports, then removes the operation from the outbox.
 */
export async function applyResult(ctx: SyncContext, op: QueuedOperation, result: OperationResult): Promise<void> {
  const operation = op.entry.operation;
  const { path } = operation;
  const sent = op.entry.sha256;
  const sentContent = "content" in operation ? operation.content : null;
  if (isMoved(result)) return applyMoved(ctx, op, result);
  switch (result.status) {
    case "applied":
      await moveBase(ctx, path, { version: result.version, sha256: result.deleted ? null : result.sha256 }, result.deleted ? null : sentContent);
      return;
    case "merged":
      return applyMerged(ctx, path, sent, sentContent, operation.baseVersion, { version: result.version, sha256: result.sha256, content: result.content, author: result.headAuthor ?? "" });
    case "conflict":
      return applyConflict(ctx, path, sent, sentContent, operation.baseVersion, result);
    case "rejected":
      ctx.reports.rejected = ctx.reports.rejected.filter((r) => r.path !== path);
      ctx.reports.rejected.push({
        path,
        opId: result.opId,
        sha256: sent,
        code: result.code,
        message: result.message,
        retry: ERRORS[result.code].retry,
        ...(result.details ? { details: result.details } : {}),
        ...(result.findings ? { findings: result.findings } : {}),
      });
      ctx.warn(`rejected ${displayPath(path)}: ${result.code}: ${result.message}`);
      return;
  }
}

/** The server merged the sent edit with a teammate's: write the merge (or merge it into a file edited again since). */
async function applyMerged(ctx: SyncContext, path: string, sent: string | null, sentContent: string | null, baseVersion: number, merged: ServerVersion): Promise<void> {
  const local = await readTeamFile(ctx.layout, path);
  if (local.kind === "unsafe") return;
  const localSha = local.kind === "file" ? local.sha256 : null;
  const event = { path: displayPath(path), author: merged.author, version: merged.version };
  try {
    if (localSha === merged.sha256) {
      await moveBase(ctx, path, merged, merged.content);
    } else if (localSha === sent && (await writeTeamFile(ctx.layout, path, merged.content!, replaceGuard(ctx, sent)))) {
      await moveBase(ctx, path, merged, merged.content);
      ctx.events.push({ type: "merged", ...event, union: false });
    } else if (sentContent !== null) {
      // Edited again since it was sent (also while the merge was being written): what was sent is
      // the common ancestor of the merge and the file.
      const now = localSha === sent ? await readTeamFile(ctx.layout, path) : local;
      if (now.kind === "unsafe") return;
      await mergeIntoWorkingFile(ctx, {
        path,
        local: { content: now.kind === "file" ? now.content : null, sha256: now.kind === "file" ? now.sha256 : null },
        server: merged,
        base: { text: sentContent, version: baseVersion },
      });
    }
  } catch (err) {
    unsafe(ctx, path, err);
  }
}

/**
 * The server kept its head and recorded the sent edit as a conflict: merge the head into the
 * working file. When the file is still what was sent, the conflict is shown even if the texts
 * merge cleanly here (the server refused its merge: too large, or it would hold a credential).
 */
async function applyConflict(
  ctx: SyncContext,
  path: string,
  sent: string | null,
  sentContent: string | null,
  baseVersion: number,
  result: Extract<OperationResult, { status: "conflict" }>,
): Promise<void> {
  const local = await readTeamFile(ctx.layout, path);
  const base = ctx.state.bases[path];
  const text = await versionText(ctx, path, baseVersion, base?.version === baseVersion ? base.sha256 : undefined);
  const head: ServerVersion = { version: result.headVersion, sha256: result.headSha256, content: result.headContent, author: result.headAuthor ?? "" };
  if (local.kind === "unsafe" || text === undefined) {
    // Nothing can be merged here now: the server's version replaces the file if it is still what
    // was sent, and your side is saved in .teammem/conflicts/ (listed until resolved or deleted).
    const copy = sentContent === null ? null : await saveConflictCopy(ctx, result.conflictId, path, sentContent);
    const localSha = local.kind === "file" ? local.sha256 : local.kind === "absent" ? null : undefined;
    if (localSha === sent || localSha === result.headSha256) {
      try {
        // Edited again while the head was being written: the edit stays, the next sync merges the head into it.
        const guard = replaceGuard(ctx, localSha);
        const replaced = result.headContent === null ? await removeTeamFile(ctx.layout, path, guard) : await writeTeamFile(ctx.layout, path, result.headContent, guard);
        if (replaced) await moveBase(ctx, path, head, head.content);
      } catch (err) {
        unsafe(ctx, path, err);
      }
    }
    ctx.reports.conflicts = ctx.reports.conflicts.filter((c) => c.conflictId !== result.conflictId);
    ctx.reports.conflicts.push({ path, conflictId: result.conflictId, headVersion: result.headVersion, copy, at: new Date().toISOString(), author: head.author });
    ctx.warn(
      `conflict on ${displayPath(path)}: the server kept version ${result.headVersion}` +
        (result.code === "merge_holds_credential" ? " (the merged text would hold a credential)" : "") +
        (copy ? `; your version is saved in ${displayRelative(copy)}` : "; your delete was recorded on the server"),
    );
    return;
  }
  const localSha = local.kind === "file" ? local.sha256 : null;
  try {
    await mergeIntoWorkingFile(ctx, {
      path,
      local: { content: local.kind === "file" ? local.content : null, sha256: localSha },
      server: head,
      base: { text, version: baseVersion },
      conflictId: result.conflictId,
      forceConflict: localSha === sent,
      mine: sentContent,
      ...(result.code ? { serverRefusal: { code: result.code, ...(result.findings ? { findings: result.findings } : {}) } } : {}),
    });
  } catch (err) {
    unsafe(ctx, path, err);
  }
}
