/**
 * The result of an operation whose content landed at another path than the one it left
 * (`renamedFrom` in the result): a rename operation of this folder, or a put of a path a teammate
 * renamed meanwhile, which followed the file to its new path. The old path's base becomes the
 * tombstone (its local file goes when it still is what was sent); the new path is written, merged
 * or given conflict markers like any result, and the move is announced.
 */
import type { OperationResult } from "@teammem/protocol";
import { UnsafeLocalPath, readTeamFile, removeTeamFile, writeTeamFile } from "../local/team-files.js";
import { displayPath } from "../state/layout.js";
import type { QueuedOperation } from "../state/outbox.js";
import { baseText, moveBase, versionText } from "./bases.js";
import { replaceGuard, type SyncContext } from "./context.js";
import { mergeIntoWorkingFile } from "./merge-local.js";

type Moved = Exclude<OperationResult, { status: "rejected" }> & { renamedFrom: { path: string; version: number } };

/** Whether `result` moved the operation's content to another path. */
export function isMoved(result: OperationResult): result is Moved {
  return result.status !== "rejected" && result.renamedFrom !== undefined;
}

export async function applyMoved(ctx: SyncContext, q: QueuedOperation, result: Moved): Promise<void> {
  const op = q.entry.operation;
  const sent = q.entry.sha256;
  const sentContent = "content" in op ? op.content : null;
  const isRename = "renameFrom" in op;
  const from = result.renamedFrom.path;
  const to = result.path;
  const author = "headAuthor" in result ? (result.headAuthor ?? "") : "";
  // The base both sides started from: the old path's version the operation was made against.
  const startVersion = isRename ? op.renameFromVersion : op.baseVersion;
  const fromBase = ctx.state.bases[from];
  const startText = result.status === "conflict" ? await versionText(ctx, from, startVersion, fromBase?.version === startVersion ? fromBase.sha256 : undefined) : "";

  try {
    if (!isRename) {
      const old = await readTeamFile(ctx.layout, from);
      if (old.kind === "file" && old.sha256 === sent) await removeTeamFile(ctx.layout, from, replaceGuard(ctx, sent));
    }
    await moveBase(ctx, from, { version: result.renamedFrom.version, sha256: null }, null);

    const local = await readTeamFile(ctx.layout, to);
    if (local.kind === "unsafe") throw new UnsafeLocalPath(to, local.reason);
    const localSha = local.kind === "file" ? local.sha256 : null;
    const localContent = local.kind === "file" ? local.content : null;
    // The working file at the new path may be replaced: it is what was sent (a rename), or still at its base (a followed put).
    const replaceable = isRename ? localSha === sent : localSha === (ctx.state.bases[to]?.sha256 ?? null);
    if (result.status === "conflict") {
      await mergeIntoWorkingFile(ctx, {
        path: to,
        local: replaceable ? { content: sentContent, sha256: sent } : { content: localContent, sha256: localSha },
        expect: localSha,
        server: { version: result.headVersion, sha256: result.headSha256, content: result.headContent, author },
        base: { text: startText ?? "", version: 0 },
        conflictId: result.conflictId,
        forceConflict: true,
        mine: sentContent,
      });
    } else {
      const landed = { version: result.version, sha256: result.sha256 };
      const content = result.status === "merged" ? result.content : sentContent;
      if (localSha === landed.sha256) await moveBase(ctx, to, landed, content);
      else if (replaceable && content !== null && (await writeTeamFile(ctx.layout, to, content, replaceGuard(ctx, localSha)))) {
        await moveBase(ctx, to, landed, content);
      } else if (content !== null) {
        // Changed here since: merge the server's version into it.
        const text = isRename ? sentContent : await baseText(ctx, to);
        if (text !== undefined && text !== null)
          await mergeIntoWorkingFile(ctx, { path: to, local: { content: localContent, sha256: localSha }, server: { ...landed, content, author }, base: { text, version: 0 } });
      }
      if (isRename && result.status === "merged") ctx.events.push({ type: "merged", path: displayPath(to), author, version: result.version, union: false });
    }
  } catch (err) {
    if (!(err instanceof UnsafeLocalPath)) throw err;
    ctx.warn(`${displayPath(to)}: not updated: ${err.reason}`);
  }
  const shown = { from: displayPath(from), to: displayPath(to) };
  const version = result.status === "conflict" ? result.headVersion : result.version;
  if (isRename) ctx.events.push({ type: "rename-sent", ...shown, version });
  else ctx.events.push({ type: "renamed", ...shown, author, version, followed: true });
}
