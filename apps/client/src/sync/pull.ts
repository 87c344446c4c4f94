/**
 * Pull: applies the server's changes since the stored cursor to the team scope.
 * A file still at its base (or absent without a base) is replaced (or, for a tombstone, deleted).
 * A file changed here too is merged locally (`merge-local.ts`): the merge, or conflict markers, is
 * written and the base moves to the server version, so the push of the result is a fast-forward; an
 * operation still queued for that path is dropped (its content is in the file now). Every outcome
 * is an event of the summary. The cursor and bases are stored only after the files of a page are
 * on disk, so a crash replays the page harmlessly; before writing a page's files, the bases they
 * will have are appended to the pull journal (`state/pull-journal.ts`), and each file written (or
 * found) at its version is marked there, so a pull stopped before the state was saved (a full disk,
 * a crash) leaves no file that looks like a local create, even once edited.
 * A base whose content was purged from the server's history cannot be merged from: the two texts
 * are merged whole (`mergeWithoutBase`: every difference between conflict markers).
 * A teammate's rename moves the file here and, when it was edited here, the edit with it; a
 * teammate's edit of a file renamed here goes into the new file (`pull-renames.ts`).
 * A change that cannot be written (a folder or a symlink in the way) is recorded as "not written"
 * (`status` shows it) and retried at every later pull from the entry's current head.
 * A change is kept out ("newer on server", until the base reaches its version) when the local file
 * still has conflict markers of an earlier conflict, or when the base text is not available to
 * merge with now (server unreachable): the push then lets the server merge; if the local edit is never sent (held back,
 * rejected, read-only token) and is reverted, the next pull fetches the entry's head and writes it.
 */
import { checkEntryPath, sha256Hex, type Change, type PurgeNotice, type ServerRef } from "@teammem/protocol";
import { ServerError } from "../errors.js";
import { UnsafeLocalPath, readTeamFile, removeTeamFile, writeTeamFile } from "../local/team-files.js";
import { caseVariantOnDisk } from "../local/path-case.js";
import { firstMarkerLine } from "../merge/markers.js";
import type { ReadTeamFile, TeamScope } from "../scope.js";
import { displayPath } from "../state/layout.js";
import { dequeue, listOutbox, sentOpIds, type QueuedOperation } from "../state/outbox.js";
import { saveConflicts, saveNewerOnServer, saveNotWritten } from "../state/reports.js";
import { journalPulled, markPulledGiven } from "../state/pull-journal.js";
import { saveSyncState } from "../state/sync-state.js";
import { mergeBaseOf, moveBase } from "./bases.js";
import { replaceGuard, type SyncContext } from "./context.js";
import { dropPurgedContent } from "./drop-purged.js";
import { mergeIntoWorkingFile } from "./merge-local.js";
import { announceRename, announcedAsRename, followLocalRename, followTeammateRenames, lazyScope, removedHere, type Follow } from "./pull-renames.js";
import { renameSource } from "./renames.js";
import { ownQueuedChange } from "./sent-operations.js";

export interface PullOutcome {
  /** Changes received from the server. */
  changes: number;
  /** Display paths written or deleted locally. */
  written: string[];
  deleted: string[];
  /** Display paths changed on the server and here, merged into the working file (cleanly, or with conflict markers: see `conflicts`). */
  merged: string[];
  /** Display paths whose merge left conflict markers in the working file. */
  conflicts: string[];
  /** Display paths changed on the server and here but not merged now (see the module comment): the push lets the server merge. */
  keptLocal: string[];
  /** Display paths whose server version could not be written here (see `status`). */
  notWritten: string[];
}

/** A server version to apply; `author` is unknown ("") for a head read outside the change feed. */
type Incoming = Pick<Change, "path" | "version" | "deleted" | "sha256" | "content"> & Partial<Pick<Change, "author" | "renamedFrom" | "renamedTo" | "purged">>;

/** One pull's working set: its outcome, the outbox's operations (dropped when a merge takes them in), renames to follow. */
interface PullRun {
  readonly outcome: PullOutcome;
  /** Queued operations by the paths they touch (a rename: both); the outbox is read on first use only (most pulls merge nothing). */
  readonly queued: () => Promise<Map<string, QueuedOperation>>;
  /** Teammates' renames of files edited here, finished once the pull has written their new paths. */
  readonly follows: (Follow & { readonly event: number })[];
  readonly scope: () => Promise<TeamScope<ReadTeamFile>>;
  /** The opIds of queued operations that may have been sent (`outbox-sent.log`), read on first use. */
  readonly sent: () => Promise<Set<string>>;
}

/** Drops the queued operations touching `path`: the working file supersedes what they hold. */
async function dropQueued(run: PullRun, path: string): Promise<void> {
  const byPath = await run.queued();
  const queued = byPath.get(path);
  if (!queued) return;
  await dequeue(queued);
  for (const [key, q] of [...byPath]) if (q === queued) byPath.delete(key);
}

export function emptyPullOutcome(): PullOutcome {
  return { changes: 0, written: [], deleted: [], merged: [], conflicts: [], keptLocal: [], notWritten: [] };
}

function newRun(ctx: SyncContext): PullRun {
  let listed: Promise<Map<string, QueuedOperation>> | undefined;
  const queued = () =>
    (listed ??= listOutbox(ctx.layout).then((ops) => {
      const byPath = new Map<string, QueuedOperation>();
      for (const q of ops) for (const path of [q.entry.operation.path, renameSource(q.entry.operation)]) if (path) byPath.set(path, q);
      return byPath;
    }));
  let sent: Promise<Set<string>> | undefined;
  return { outcome: emptyPullOutcome(), queued, follows: [], scope: lazyScope(ctx), sent: () => (sent ??= sentOpIds(ctx.layout)) };
}

/**
 * The server is not the one the stored cursor came from: its reply named another identity or
 * epoch than `state.server`. Nothing of that reply was applied; the caller reconciles.
 */
export class ServerChanged extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = "ServerChanged";
  }
}

/** Why `seen` is not the server `state.server` names (null: it is, or none is stored yet). */
export function serverChangeReason(ctx: Pick<SyncContext, "state">, seen: ServerRef): string | null {
  const known = ctx.state.server;
  if (!known) return null;
  if (known.id !== seen.id) return "the server is another one than this folder synced with (its identity changed: reset, or moved to a new database)";
  if (known.epoch !== seen.epoch) return "the server's database was restored, reset or moved (its epoch changed)";
  return null;
}

/**
 * Pulls the changes since the stored cursor.
 * @throws ServerChanged (nothing applied) when a reply names another server identity or epoch than
 *   the one the cursor came from; ServerError `stale_cursor` when the server refuses the cursor.
 */
export async function pull(ctx: SyncContext): Promise<PullOutcome> {
  const run = newRun(ctx);
  const touched = new Set<string>();
  let unsaved = 0;
  /** Whether the state changed since it was last saved: a no-change pull (one empty page) writes nothing. */
  let dirty = false;
  try {
    for (;;) {
      // A page at most as large as one reply may carry at the server's entry limit (http/reply-cap.ts).
      const page = await ctx.api.changes(ctx.state.cursor, Math.min(ctx.pullPageSize, ctx.api.replies.entriesPerReply));
      const changed = serverChangeReason(ctx, page.server);
      if (changed !== null) throw new ServerChanged(changed);
      if (!ctx.state.server) {
        ctx.state.server = page.server;
        dirty = true;
      }
      if (page.changes.length > 0) dirty = true;
      await journal(ctx, page.changes);
      for (const change of page.changes) {
        run.outcome.changes++;
        touched.add(change.path);
        await applyChange(ctx, change, run);
      }
      // Cursors only move forward: a reply that would move ours back (or not at all) ends the pull.
      const advanced = page.nextCursor > ctx.state.cursor;
      if (advanced) {
        ctx.state.cursor = page.nextCursor;
        dirty = true;
      }
      const last = !page.hasMore || page.changes.length === 0 || !advanced;
      // Kept-out versions and conflicts are stored before the cursor moves past them.
      await saveNewerOnServer(ctx.layout, ctx.reports.newerOnServer);
      await saveConflicts(ctx.layout, ctx.reports.conflicts);
      // The state (a base per entry) is saved once a quarter of the entries' worth of changes was
      // applied, not after every page, so a pull of N changes writes O(N) bytes of state; a crash in
      // between pulls those pages again (applying a change the file already holds changes nothing).
      unsaved += page.changes.length;
      if (dirty && (last || unsaved >= Math.max(ctx.pullPageSize, Object.keys(ctx.state.bases).length / 4))) {
        await saveSyncState(ctx.layout, ctx.state);
        unsaved = 0;
        dirty = false;
      }
      await saveNotWritten(ctx.layout, ctx.reports.notWritten);
      if (last) break;
    }
  } finally {
    // Also when a page fails: the files written so far and their bases stay together.
    if (dirty) await saveSyncState(ctx.layout, ctx.state);
  }
  if (run.follows.length > 0) {
    const followed = await followTeammateRenames(ctx, run.follows, (path) => dropQueued(run, path));
    run.outcome.merged.push(...followed.merged);
    run.outcome.conflicts.push(...followed.conflicts);
    await saveConflicts(ctx.layout, ctx.reports.conflicts);
    await saveSyncState(ctx.layout, ctx.state);
  }
  await retryNotWritten(ctx, touched, run);
  await retryNewerOnServer(ctx, touched, run);
  return run.outcome;
}

/**
 * Appends the bases `changes` would give their files to the pull journal, before any is written
 * (see the module comment); a change the folder has already (its base as new) is left out.
 * @throws the file system's error (a full disk): then none of them is written.
 */
function journal(ctx: SyncContext, changes: readonly Incoming[]): Promise<void> {
  const due = changes.filter((c) => (ctx.state.bases[c.path]?.version ?? -1) < c.version);
  return journalPulled(ctx.layout, due.map((c) => ({ path: c.path, version: c.version, sha256: c.deleted ? null : c.sha256 })));
}

/** Paths per POST entries/read (the protocol's maximum). */
const READ_PAGE = 200;

/**
 * The current heads of `paths` that the server has, in pages of {@link READ_PAGE} (POST
 * entries/read; fewer when one reply may carry fewer at the server's entry limit), so applying N heads takes N / 200 requests, not N. A server without that route
 * (older than the client: 404 "no route") is read one GET entry per path.
 */
async function readHeads(ctx: SyncContext, paths: readonly string[]): Promise<Incoming[]> {
  const heads: Incoming[] = [];
  const size = Math.min(READ_PAGE, ctx.api.replies.entriesPerReply);
  for (let i = 0; i < paths.length; i += size) {
    const page = paths.slice(i, i + size);
    try {
      heads.push(...(await ctx.api.entries(page)).entries);
    } catch (err) {
      if (!(err instanceof ServerError && err.code === "not_found" && err.serverMessage.startsWith("no route "))) throw err;
      for (const path of page) {
        try {
          heads.push(await ctx.api.entry(path));
        } catch (e) {
          if (!(e instanceof ServerError && e.code === "not_found")) throw e;
        }
      }
    }
  }
  return heads;
}

/**
 * Applies the current heads of `paths` (read with POST entries/read; a path the server does not have is
 * skipped) like pulled changes: written when the local file is at its base, merged when it changed
 * here too, deleted for a tombstone. For a reconciliation; the caller saves the cursor.
 */
export async function applyHeads(ctx: SyncContext, paths: readonly string[]): Promise<PullOutcome> {
  const run = newRun(ctx);
  const heads = await readHeads(ctx, paths);
  await journal(ctx, heads);
  for (const head of heads) {
    run.outcome.changes++;
    await applyChange(ctx, head, run);
  }
  if (run.follows.length > 0) await followTeammateRenames(ctx, run.follows, (path) => dropQueued(run, path));
  await saveNewerOnServer(ctx.layout, ctx.reports.newerOnServer);
  await saveConflicts(ctx.layout, ctx.reports.conflicts);
  await saveNotWritten(ctx.layout, ctx.reports.notWritten);
  await saveSyncState(ctx.layout, ctx.state);
  return run.outcome;
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
async function retryNewerOnServer(ctx: SyncContext, touched: ReadonlySet<string>, run: PullRun): Promise<void> {
  dropCaughtUp(ctx);
  let applied = 0;
  const due: string[] = [];
  for (const entry of ctx.reports.newerOnServer.filter((n) => !touched.has(n.path))) {
    const local = await readTeamFile(ctx.layout, entry.path);
    if (local.kind === "unsafe") continue;
    const localSha = local.kind === "file" ? local.sha256 : null;
    if (localSha !== (ctx.state.bases[entry.path]?.sha256 ?? null)) continue;
    due.push(entry.path);
  }
  const heads = due.length === 0 ? [] : await readHeads(ctx, due);
  const found = new Set(heads.map((h) => h.path));
  ctx.reports.newerOnServer = ctx.reports.newerOnServer.filter((n) => !due.includes(n.path) || found.has(n.path));
  await journal(ctx, heads);
  for (const head of heads) {
    await applyChange(ctx, head, run);
    applied++;
  }
  dropCaughtUp(ctx);
  if (applied > 0) await saveSyncState(ctx.layout, ctx.state);
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
async function retryNotWritten(ctx: SyncContext, touched: ReadonlySet<string>, run: PullRun): Promise<void> {
  const retry = ctx.reports.notWritten.filter((n) => !touched.has(n.path));
  if (retry.length === 0) return;
  const heads = await readHeads(ctx, retry.map((n) => n.path));
  const found = new Set(heads.map((h) => h.path));
  for (const entry of retry) if (!found.has(entry.path)) forget(ctx, entry.path);
  await journal(ctx, heads);
  for (const head of heads) await applyChange(ctx, head, run);
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

/** Whether the working file `content` of `path` still has markers of a conflict written into it. */
function hasUnresolvedMarkers(ctx: SyncContext, path: string, content: string | null): boolean {
  return content !== null && ctx.reports.conflicts.some((c) => c.path === path && c.markers === true) && firstMarkerLine(content) !== null;
}

/** Why a pulled version is not written on a case-insensitive file system where `variant` (an entry path) is. */
export function caseClashReason(variant: string): string {
  return (
    `${displayPath(variant)} is here and its name differs only by letter case; this file system does not tell them apart, ` +
    "so writing this one would overwrite it: rename one of them (on a case-sensitive machine, or in one folder on the server)"
  );
}

/** Times a change is decided again when the local file changed between the decision and the replace. */
const REDECIDE_LIMIT = 3;

/**
 * Applies one server change. The local file is replaced (or deleted) only if it still holds what
 * the decision read, checked right before the rename (`ReplaceGuard`): an edit written in between
 * (an agent writing while `teammem watch` pulls) makes the change decided again from the new
 * content, so it is merged like any local edit, never overwritten; after {@link REDECIDE_LIMIT}
 * such changes in a row it is kept out and the push lets the server merge.
 */
async function applyChange(ctx: SyncContext, change: Incoming, run: PullRun, attempt = 1): Promise<void> {
  const { outcome } = run;
  const check = checkEntryPath(change.path);
  if (!check.ok || check.path !== change.path) {
    ctx.warn(`skipped a server change with an invalid path: ${displayPath(change.path)} (${check.ok ? "not NFC-normalised" : check.message})`);
    return;
  }
  const path = change.path;
  const shown = displayPath(path);
  const base = ctx.state.bases[path];
  if (change.purged) await announcePurge(ctx, change as Incoming & { purged: PurgeNotice }, base?.version);
  if (base && change.version <= base.version) {
    forget(ctx, path); // already have it (e.g. our own push's result)
    return;
  }
  const incoming = change.deleted ? null : change.content;
  if (!change.deleted && (incoming === null || sha256Hex(incoming) !== change.sha256)) {
    // Kept as not written (shown by `status`, fetched again by the next sync), never just dropped.
    notWritten(ctx, change, "the server sent content that does not match its sha256", outcome);
    return;
  }
  const incomingSha = change.deleted ? null : change.sha256;
  if (ctx.caseInsensitive) {
    // On this file system the path would reach a file whose name differs only by case: writing
    // or deleting through it would change that other entry. Kept as not written, retried every sync.
    const variant = await caseVariantOnDisk(ctx.layout.team, path);
    if (variant !== null) {
      notWritten(ctx, change, caseClashReason(variant), outcome);
      return;
    }
  }
  const local = await readTeamFile(ctx.layout, path);
  if (local.kind === "unsafe") {
    notWritten(ctx, change, local.reason, outcome);
    return;
  }
  forget(ctx, path);
  const localSha = local.kind === "file" ? local.sha256 : null;
  const localContent = local.kind === "file" ? local.content : null;
  const next = { version: change.version, sha256: incomingSha };
  const author = change.author ?? "";
  if (localSha === incomingSha) {
    // Deleted here too: a teammate's rename says where the file went.
    if (change.renamedTo && base?.sha256) announceRename(ctx, change, await removedHere(ctx, path, run.scope));
    await moveBase(ctx, path, next, incoming);
    await markPulledGiven(ctx.layout, path, change.version);
    return;
  }
  if (localSha !== (base?.sha256 ?? null)) {
    // Our own operation, applied by the server but never acknowledged (try21 F3): the base moves,
    // the file (edited since) stays; a later edit is ours, not a conflict with a teammate.
    const own = await ownQueuedChange(ctx, (await run.queued()).get(path), await run.sent(), change);
    if (own !== null) {
      if (own === "spent") await dropQueued(run, path);
      await moveBase(ctx, path, next, incoming);
      return;
    }
    await mergeChange(ctx, run, change, { content: localContent, sha256: localSha });
    return;
  }
  const guard = replaceGuard(ctx, localSha);
  try {
    const replaced = incoming === null ? await removeTeamFile(ctx.layout, path, guard) : await writeTeamFile(ctx.layout, path, incoming, guard);
    if (!replaced) {
      // Written here while this change was being applied: decided again from what the file holds now.
      if (attempt < REDECIDE_LIMIT) return await applyChange(ctx, change, run, attempt + 1);
      if (!outcome.keptLocal.includes(shown)) outcome.keptLocal.push(shown);
      keptOut(ctx, change, incomingSha);
      return;
    }
    (incoming === null ? outcome.deleted : outcome.written).push(shown);
  } catch (err) {
    if (err instanceof UnsafeLocalPath) {
      notWritten(ctx, change, err.reason, outcome);
      return;
    }
    throw err;
  }
  await moveBase(ctx, path, next, incoming);
  // The file holds this version now: a stopped pull's path keeps this base even once edited (try21 F8).
  await markPulledGiven(ctx.layout, path, change.version);
  if (incoming === null && change.renamedTo) announceRename(ctx, change);
  else if (!announcedAsRename(ctx, change)) {
    const type = incoming === null ? "deleted" : localSha === null ? "created" : "updated";
    ctx.events.push({ type, path: shown, author, version: change.version });
  }
}

/**
 * Drops the local copies of content purged from the entry's history and says so: when something
 * was dropped, or when the change is the purge's own announcement to a folder that knew the entry
 * (the head it has, moved to a new cursor; or the tombstone that replaced a purged head).
 */
async function announcePurge(ctx: SyncContext, change: Incoming & { purged: PurgeNotice }, baseVersion: number | undefined): Promise<void> {
  const dropped = await dropPurgedContent(ctx, change.purged);
  const own = baseVersion !== undefined && (change.version === baseVersion || (change.deleted && change.purged.versions.includes(change.version - 1)));
  if (dropped === 0 && !own) return;
  ctx.events.push({ type: "purged", path: displayPath(change.path), versions: change.purged.versions, by: change.purged.by, reason: change.purged.reason, dropped });
}

/** A change of a file changed here too: merged into the working file, or kept out (see the module comment). */
async function mergeChange(ctx: SyncContext, run: PullRun, change: Incoming, local: { content: string | null; sha256: string | null }): Promise<void> {
  const { outcome } = run;
  const path = change.path;
  const shown = displayPath(path);
  const incoming = change.deleted ? null : change.content;
  const keep = () => {
    if (!outcome.keptLocal.includes(shown)) outcome.keptLocal.push(shown);
    keptOut(ctx, change, change.deleted ? null : change.sha256);
  };
  if (hasUnresolvedMarkers(ctx, path, local.content)) return keep();
  if (change.renamedTo && local.content !== null && local.sha256 !== null) {
    // A teammate renamed the file you edited: your edit follows it once the new path is written.
    run.follows.push({ from: path, to: change.renamedTo, author: change.author ?? "", version: change.version, local: { content: local.content, sha256: local.sha256 }, event: announceRename(ctx, change) });
    return;
  }
  if (local.content === null && incoming !== null) {
    // Deleted here: if it was renamed here, the teammate's edit goes into the new file.
    const moved = await followLocalRename(ctx, { ...change, content: incoming }, run.scope);
    if (moved && moved.outcome !== "changed") {
      (moved.outcome === "conflict" ? outcome.conflicts : outcome.merged).push(displayPath(moved.to));
      await dropQueued(run, path);
      await dropQueued(run, moved.to);
      return;
    }
  }
  const base = ctx.state.bases[path];
  const from = incoming === null || local.content === null ? { text: "" } : await mergeBaseOf(ctx, path);
  if (from === undefined) return keep();
  let merged;
  try {
    merged = await mergeIntoWorkingFile(ctx, {
      path,
      local,
      server: { version: change.version, sha256: change.deleted ? null : change.sha256, content: incoming, author: change.author ?? "" },
      // A purged base: both texts are merged as they are, every difference between conflict markers.
      base: from === "purged" ? { text: "", version: base!.version, purged: true } : { text: from.text, version: base?.sha256 ? base.version : 0 },
    });
  } catch (err) {
    if (err instanceof UnsafeLocalPath) return notWritten(ctx, change, err.reason, outcome);
    throw err;
  }
  if (merged === "changed") return keep();
  if (merged === "conflict") outcome.conflicts.push(shown);
  else if (merged === "written") outcome.merged.push(shown);
  // An operation queued for the path holds what the file held before; the file (merged) supersedes it.
  await dropQueued(run, path);
}
