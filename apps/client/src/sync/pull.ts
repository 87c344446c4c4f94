/**
 * Pull: applies the server's changes since the stored cursor to the team scope.
 * A change is written (or, for a tombstone, deleted) only when the local file is still at its base
 * (or absent without a base); a file changed locally since its base is left alone, and the push
 * sends it with the old base so the server three-way merges. The cursor and bases are stored only
 * after the files of a page are on disk, so a crash replays the page harmlessly.
 */
import { checkEntryPath, sha256Hex, type Change } from "@teammem/protocol";
import { UnsafeLocalPath, readTeamFile, removeTeamFile, writeTeamFile } from "../local/team-files.js";
import { displayPath } from "../state/layout.js";
import { advanceBase, saveSyncState } from "../state/sync-state.js";
import type { SyncContext } from "./context.js";

export interface PullOutcome {
  /** Changes received from the server. */
  changes: number;
  /** Display paths written or deleted locally. */
  written: string[];
  deleted: string[];
  /** Display paths changed on the server and locally: kept as they are, merged by the push. */
  keptLocal: string[];
}

export async function pull(ctx: SyncContext): Promise<PullOutcome> {
  const outcome: PullOutcome = { changes: 0, written: [], deleted: [], keptLocal: [] };
  for (;;) {
    const page = await ctx.api.changes(ctx.state.cursor, ctx.pullPageSize);
    for (const change of page.changes) {
      outcome.changes++;
      await applyChange(ctx, change, outcome);
    }
    // Cursors only move forward: a reply that would move ours back (or not at all) ends the pull.
    const advanced = page.nextCursor > ctx.state.cursor;
    if (advanced) ctx.state.cursor = page.nextCursor;
    await saveSyncState(ctx.layout, ctx.state);
    if (!page.hasMore || page.changes.length === 0 || !advanced) return outcome;
  }
}

async function applyChange(ctx: SyncContext, change: Change, outcome: PullOutcome): Promise<void> {
  const check = checkEntryPath(change.path);
  if (!check.ok || check.path !== change.path) {
    ctx.warn(`skipped a server change with an invalid path (${check.ok ? "not NFC-normalised" : check.message})`);
    return;
  }
  const path = change.path;
  const shown = displayPath(path);
  const base = ctx.state.bases[path];
  if (base && change.version <= base.version) return; // already have it (e.g. our own push's result)
  const incoming = change.deleted ? null : change.content;
  if (!change.deleted && (incoming === null || sha256Hex(incoming) !== change.sha256)) {
    ctx.warn(`${shown}: the server sent content that does not match its sha256; skipped`);
    return;
  }
  const incomingSha = change.deleted ? null : change.sha256;
  const local = await readTeamFile(ctx.layout, path);
  if (local.kind === "unsafe") {
    ctx.warn(`${shown}: not updated from the server: ${local.reason}`);
    return;
  }
  const localSha = local.kind === "file" ? local.sha256 : null;
  const next = { version: change.version, sha256: incomingSha };
  if (localSha === incomingSha) {
    advanceBase(ctx.state, path, next);
    return;
  }
  if (localSha !== (base?.sha256 ?? null)) {
    if (!outcome.keptLocal.includes(shown)) outcome.keptLocal.push(shown);
    return;
  }
  try {
    if (incoming === null) {
      await removeTeamFile(ctx.layout, path);
      outcome.deleted.push(shown);
    } else {
      await writeTeamFile(ctx.layout, path, incoming);
      outcome.written.push(shown);
    }
  } catch (err) {
    if (err instanceof UnsafeLocalPath) {
      ctx.warn(`${shown}: not updated from the server: ${err.reason}`);
      return;
    }
    throw err;
  }
  advanceBase(ctx.state, path, next);
}
