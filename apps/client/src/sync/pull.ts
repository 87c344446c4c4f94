/**
 * Pull: applies the server's changes since the stored cursor to the team scope.
 * A change is written (or, for a tombstone, deleted) only when the local file is still at its base
 * (or absent without a base); a file changed locally since its base is left alone, and the push
 * sends it with the old base so the server three-way merges. The cursor and bases are stored only
 * after the files of a page are on disk, so a crash replays the page harmlessly.
 * A change that cannot be written (a folder or a symlink in the way) is recorded as "not written"
 * (`status` shows it) and retried at every later pull from the entry's current head.
 * A change kept out because the local file changed is recorded as "newer on server" until the base
 * reaches its version: normally the push merges it, but when the local edit is not sent (held back,
 * rejected, read-only token) and is later reverted, the next pull fetches the entry's head and
 * writes it (the local file equals its base again, so nothing local is lost).
 */
import { checkEntryPath, sha256Hex, type Change } from "@teammem/protocol";
import { ServerError } from "../errors.js";
import { UnsafeLocalPath, readTeamFile, removeTeamFile, writeTeamFile } from "../local/team-files.js";
import { displayPath } from "../state/layout.js";
import { saveNewerOnServer, saveNotWritten } from "../state/reports.js";
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
  /** Display paths whose server version could not be written here (see `status`). */
  notWritten: string[];
}

type Incoming = Pick<Change, "path" | "version" | "deleted" | "sha256" | "content">;

export async function pull(ctx: SyncContext): Promise<PullOutcome> {
  const outcome: PullOutcome = { changes: 0, written: [], deleted: [], keptLocal: [], notWritten: [] };
  const touched = new Set<string>();
  for (;;) {
    const page = await ctx.api.changes(ctx.state.cursor, ctx.pullPageSize);
    for (const change of page.changes) {
      outcome.changes++;
      touched.add(change.path);
      await applyChange(ctx, change, outcome);
    }
    // Cursors only move forward: a reply that would move ours back (or not at all) ends the pull.
    const advanced = page.nextCursor > ctx.state.cursor;
    if (advanced) ctx.state.cursor = page.nextCursor;
    // Kept-out versions are stored before the cursor moves past them.
    await saveNewerOnServer(ctx.layout, ctx.reports.newerOnServer);
    await saveSyncState(ctx.layout, ctx.state);
    await saveNotWritten(ctx.layout, ctx.reports.notWritten);
    if (!page.hasMore || page.changes.length === 0 || !advanced) break;
  }
  await retryNotWritten(ctx, touched, outcome);
  await retryNewerOnServer(ctx, touched, outcome);
  return outcome;
}

/**
 * Drops the "newer on server" records whose version the base has reached (the push merged the
 * local edit, or the version was written). Call after the bases changed; the caller saves.
 */
export function dropCaughtUp(ctx: SyncContext): void {
  ctx.reports.newerOnServer = ctx.reports.newerOnServer.filter((n) => (ctx.state.bases[n.path]?.version ?? 0) < n.version);
}

/**
 * For each path with a newer server version kept out earlier (and not just pulled): when the local
 * file is back at its base (the local edit was reverted, or never sent), fetches the entry's head
 * and applies it like a pulled change. A file still changed locally is left alone (its push merges).
 */
async function retryNewerOnServer(ctx: SyncContext, touched: ReadonlySet<string>, outcome: PullOutcome): Promise<void> {
  dropCaughtUp(ctx);
  for (const entry of ctx.reports.newerOnServer.filter((n) => !touched.has(n.path))) {
    const local = await readTeamFile(ctx.layout, entry.path);
    if (local.kind === "unsafe") continue;
    const localSha = local.kind === "file" ? local.sha256 : null;
    if (localSha !== (ctx.state.bases[entry.path]?.sha256 ?? null)) continue;
    let head: Incoming;
    try {
      head = await ctx.api.entry(entry.path);
    } catch (err) {
      if (err instanceof ServerError && err.code === "not_found") {
        ctx.reports.newerOnServer = ctx.reports.newerOnServer.filter((n) => n.path !== entry.path);
        continue;
      }
      throw err;
    }
    await applyChange(ctx, head, outcome);
  }
  dropCaughtUp(ctx);
  await saveSyncState(ctx.layout, ctx.state);
  await saveNotWritten(ctx.layout, ctx.reports.notWritten);
  await saveNewerOnServer(ctx.layout, ctx.reports.newerOnServer);
}

/** Records that the server holds `change` for a path whose local edit kept it out (newest version wins). */
function keptOut(ctx: SyncContext, change: Incoming, sha256: string | null): void {
  const before = ctx.reports.newerOnServer.find((n) => n.path === change.path);
  if (before && before.version >= change.version) return;
  ctx.reports.newerOnServer = ctx.reports.newerOnServer.filter((n) => n.path !== change.path);
  ctx.reports.newerOnServer.push({ path: change.path, version: change.version, sha256, at: new Date().toISOString() });
}

/** Tries again the entries not written before (and not just pulled) from their current head on the server. */
async function retryNotWritten(ctx: SyncContext, touched: ReadonlySet<string>, outcome: PullOutcome): Promise<void> {
  const retry = ctx.reports.notWritten.filter((n) => !touched.has(n.path));
  if (retry.length === 0) return;
  for (const entry of retry) {
    let head: Incoming;
    try {
      head = await ctx.api.entry(entry.path);
    } catch (err) {
      if (err instanceof ServerError && err.code === "not_found") {
        forget(ctx, entry.path);
        continue;
      }
      throw err;
    }
    await applyChange(ctx, head, outcome);
  }
  await saveSyncState(ctx.layout, ctx.state);
  await saveNotWritten(ctx.layout, ctx.reports.notWritten);
}

function forget(ctx: SyncContext, path: string): void {
  ctx.reports.notWritten = ctx.reports.notWritten.filter((n) => n.path !== path);
}

function notWritten(ctx: SyncContext, change: Incoming, reason: string, outcome: PullOutcome): void {
  const shown = displayPath(change.path);
  const before = ctx.reports.notWritten.find((n) => n.path === change.path);
  forget(ctx, change.path);
  ctx.reports.notWritten.push({ path: change.path, version: change.version, reason, at: new Date().toISOString() });
  if (!outcome.notWritten.includes(shown)) outcome.notWritten.push(shown);
  // Warned when it first happens; `status` keeps showing it until it is resolved.
  if (!before || before.reason !== reason) ctx.warn(`${shown}: not updated from the server: ${reason}`);
}

async function applyChange(ctx: SyncContext, change: Incoming, outcome: PullOutcome): Promise<void> {
  const check = checkEntryPath(change.path);
  if (!check.ok || check.path !== change.path) {
    ctx.warn(`skipped a server change with an invalid path (${check.ok ? "not NFC-normalised" : check.message})`);
    return;
  }
  const path = change.path;
  const shown = displayPath(path);
  const base = ctx.state.bases[path];
  if (base && change.version <= base.version) {
    forget(ctx, path); // already have it (e.g. our own push's result)
    return;
  }
  const incoming = change.deleted ? null : change.content;
  if (!change.deleted && (incoming === null || sha256Hex(incoming) !== change.sha256)) {
    ctx.warn(`${shown}: the server sent content that does not match its sha256; skipped`);
    return;
  }
  const incomingSha = change.deleted ? null : change.sha256;
  const local = await readTeamFile(ctx.layout, path);
  if (local.kind === "unsafe") {
    notWritten(ctx, change, local.reason, outcome);
    return;
  }
  forget(ctx, path);
  const localSha = local.kind === "file" ? local.sha256 : null;
  const next = { version: change.version, sha256: incomingSha };
  if (localSha === incomingSha) {
    advanceBase(ctx.state, path, next);
    return;
  }
  if (localSha !== (base?.sha256 ?? null)) {
    if (!outcome.keptLocal.includes(shown)) outcome.keptLocal.push(shown);
    keptOut(ctx, change, incomingSha);
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
      notWritten(ctx, change, err.reason, outcome);
      return;
    }
    throw err;
  }
  advanceBase(ctx.state, path, next);
}
