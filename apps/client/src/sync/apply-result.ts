/**
 * What the client does with the server's result for one queued operation. The base moves only
 * when the local file matches what the server now holds; a file edited again since it was sent
 * keeps its old base, so the next push lets the server merge that edit too.
 */
import { mkdir } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { ERRORS, type OperationResult } from "@teammem/protocol";
import { UnsafeLocalPath, readTeamFile, removeTeamFile, writeTeamFile } from "../local/team-files.js";
import { writeFileAtomic } from "../state/atomic.js";
import { displayPath, displayRelative } from "../state/layout.js";
import type { QueuedOperation } from "../state/outbox.js";
import { advanceBase } from "../state/sync-state.js";
import type { SyncContext } from "./context.js";

/** Whether the local file of `path` holds `sha256` (null: absent). Unsafe files match nothing. */
async function localIs(ctx: SyncContext, path: string, ...candidates: (string | null)[]): Promise<boolean> {
  const local = await readTeamFile(ctx.layout, path);
  if (local.kind === "unsafe") return false;
  return candidates.includes(local.kind === "file" ? local.sha256 : null);
}

/** Writes (or, for null, deletes) the team file; a local path that became unsafe is only reported. */
async function putLocal(ctx: SyncContext, path: string, content: string | null): Promise<boolean> {
  try {
    if (content === null) await removeTeamFile(ctx.layout, path);
    else await writeTeamFile(ctx.layout, path, content);
    return true;
  } catch (err) {
    if (err instanceof UnsafeLocalPath) {
      ctx.warn(`${displayPath(path)}: not updated: ${err.reason}`);
      return false;
    }
    throw err;
  }
}

/** A folder name made only of safe characters, from a server-chosen id. */
function safeName(id: string): string {
  return id.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 128) || "conflict";
}

/**
 * Applies `result` (for `op`) to the files, the bases and the reports held by `ctx`. The caller
 * saves state and reports, then removes the operation from the outbox.
 */
export async function applyResult(ctx: SyncContext, op: QueuedOperation, result: OperationResult): Promise<void> {
  const { path } = op.entry.operation;
  const sent = op.entry.sha256;
  switch (result.status) {
    case "applied":
      advanceBase(ctx.state, path, { version: result.version, sha256: result.deleted ? null : result.sha256 });
      return;
    case "merged":
      if (await localIs(ctx, path, sent, result.sha256)) {
        if (await putLocal(ctx, path, result.content))
          advanceBase(ctx.state, path, { version: result.version, sha256: result.sha256 });
      }
      return;
    case "conflict": {
      let copy: string | null = null;
      const operation = op.entry.operation;
      if ("content" in operation) {
        const file = join(ctx.layout.conflictCopies, safeName(result.conflictId), path);
        await mkdir(dirname(file), { recursive: true });
        await writeFileAtomic(file, operation.content);
        copy = relative(ctx.layout.root, file);
      }
      if (await localIs(ctx, path, sent, result.headSha256)) {
        if (await putLocal(ctx, path, result.headContent))
          advanceBase(ctx.state, path, { version: result.headVersion, sha256: result.headSha256 });
      }
      ctx.reports.conflicts = ctx.reports.conflicts.filter((c) => c.conflictId !== result.conflictId);
      ctx.reports.conflicts.push({ path, conflictId: result.conflictId, headVersion: result.headVersion, copy, at: new Date().toISOString() });
      ctx.warn(
        `conflict on ${displayPath(path)}: the server kept version ${result.headVersion}` +
          (copy ? `; your version is saved in ${displayRelative(copy)}` : "; your delete was recorded on the server"),
      );
      return;
    }
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
