/**
 * Full reconciliation with the server, by content. Due when the server is not the one this folder
 * synced with (another identity or epoch: restored from a backup, reset, moved between databases;
 * or it refused the cursor as `stale_cursor`), and when a folder with files has no sync state
 * (first sync, or its state folder was lost): the stored bases and cursor then name no version of
 * the server's history, so nothing that compares against them can be trusted.
 *
 * 1. The reconciliation is marked pending in `state.json` first: `status` says so, and a crash (or
 *    an unreachable server) leaves it due, so the next sync runs it from the start.
 * 2. When the folder knew another server (identity, epoch), the outbox is emptied: its operations'
 *    base versions name the old history; the files hold what they would send, and the bases the
 *    deletes, so the push after the reconciliation queues them again. When this folder's state was
 *    lost (no cursor or base stored: a damaged `state.json` rebuilt), the queued operations
 *    are the user's intent and were made on this server: they stay queued, and the bases are found
 *    again from them and from the base store (`recover-bases.ts`) before step 4.
 * 3. Every head is read (GET heads, paged; the first page's cursor is where the change feed
 *    continues from afterwards).
 * 4. Per path, the new base is the head when the local file equals it; else the newest version of
 *    the server's history holding the local file's content, the old base's or one the old base held
 *    before (`earlier`; POST versions/find);
 *    else the head's tombstone when the server deleted the path; the live head when this folder had
 *    synced its delete (the delete is sent again); else none (new to the server).
 * 5. State saved (bases, cursor, server identity), then every head newer than its new base is
 *    applied like a pulled change: written, merged with a local edit, or deleted (`teammem push`,
 *    which does not pull, records them as newer on the server instead). A file this folder
 *    had no base for whose content is an older version of the history is a stale copy: the newer
 *    head replaces it (a teammate's delete is not undone by a copied folder).
 * 6. The pending mark is cleared. What the server lacks differs from its new base and is sent by
 *    the push that follows as new versions, through the send path: history is never rewritten.
 */
import type { HeadInfo } from "@teammem/protocol";
import { ServerError } from "../errors.js";
import { walkTeamScope } from "../scope.js";
import { displayPath } from "../state/layout.js";
import { dequeueAll, listOutbox } from "../state/outbox.js";
import { saveConflicts, saveNewerOnServer, saveNotWritten } from "../state/reports.js";
import { saveSyncState, withEarlier, type Base } from "../state/sync-state.js";
import type { SyncContext } from "./context.js";
import { createMissingNamespace } from "./ensure-namespace.js";
import { countSendKinds, type Reconciled, type ReconcileSendKind } from "./events.js";
import { applyHeads, emptyPullOutcome, type PullOutcome } from "./pull.js";
import { localChanges } from "./queue-changes.js";
import { recoverLostBases } from "./recover-bases.js";
import { renameSource } from "./renames.js";

/** Heads per GET heads page, and paths per POST versions/find (the protocol's maxima). */
const HEADS_PAGE = 1000;
const FIND_PAGE = 200;

/** What sending a local change against its new `base` is: a file the server lacks (no live head), an edit of one it has, or its delete. */
function sendKind(base: Base | undefined, content: string | null): ReconcileSendKind {
  if (content === null) return "deleted";
  return base?.sha256 ? "edited" : "missing";
}

/** The prefix of a sha256 that versions/find matches on. */
const prefix = (sha256: string) => sha256.slice(0, 16);

/** Why a folder without sync state reconciles on its first sync. */
export const NO_STATE_REASON = "this folder has no sync state yet (first sync, or its state folder was lost): its files are compared with the server's by content";

/**
 * Whether `ctx`'s folder holds team files but nothing says it ever synced: no server identity,
 * cursor, base or queued operation stored (a new folder, or one whose state folder was lost).
 */
export async function hasFilesWithoutState(ctx: SyncContext): Promise<boolean> {
  if (ctx.state.server || ctx.state.cursor > 0 || Object.keys(ctx.state.bases).length > 0) return false;
  if ((await listOutbox(ctx.layout)).length > 0) return false;
  return (await walkTeamScope(ctx.layout)).files.size > 0;
}

/**
 * Marks a reconciliation due for `reason` (kept if one is already due) and saves it, before anything
 * else happens, so it survives a crash or an unreachable server.
 */
export async function markReconcileDue(ctx: SyncContext, reason: string): Promise<void> {
  if (ctx.state.reconcile) return;
  ctx.state.reconcile = { reason, since: new Date().toISOString() };
  await saveSyncState(ctx.layout, ctx.state);
}

/**
 * Runs the due reconciliation (see the module comment); pushes its events (`reconciled`, unless the
 * folder merely had no state yet, and one per stale copy) and those of the heads it applies.
 * @returns what applying the heads did to the files, as a pull's outcome.
 * @throws NetworkError/ServerError when the server cannot be read; the reconciliation stays due.
 */
export async function reconcile(ctx: SyncContext): Promise<PullOutcome> {
  const reason = ctx.state.reconcile?.reason ?? "the server is not the one this folder synced with";
  await markReconcileDue(ctx, reason);
  // No cursor or base stored (the server, if any, was stored by this run from the current one):
  // nothing says the queued operations were made on another server (see step 2).
  const lostState = ctx.state.cursor === 0 && Object.keys(ctx.state.bases).length === 0;
  const queued = await listOutbox(ctx.layout);
  if (!lostState) await dequeueAll(ctx.layout, queued);
  const { heads, cursor, server } = await readHeads(ctx);
  const scope = await walkTeamScope(ctx.layout);
  if (lostState) ctx.state.bases = await recoverLostBases(ctx, queued, heads, scope);
  // Paths a kept operation touches: their recovered base stands (the operation is sent from it).
  const pinned = new Set(lostState ? queued.flatMap(({ entry: { operation } }) => [operation.path, renameSource(operation) ?? operation.path]) : []);
  const paths = new Set([...scope.files.keys(), ...Object.keys(ctx.state.bases), ...heads.keys()]);
  const local = (path: string) => scope.files.get(path)?.sha256 ?? null;

  const bases: Record<string, Base> = {};
  const ask: { path: string; candidates: string[] }[] = [];
  for (const path of paths) {
    const head = heads.get(path);
    const here = local(path);
    const kept = pinned.has(path) ? ctx.state.bases[path] : undefined;
    if (kept) {
      bases[path] = kept;
      continue;
    }
    if (head && head.sha256 === here) {
      bases[path] = { version: head.version, sha256: head.sha256 };
      continue;
    }
    const old = ctx.state.bases[path];
    const candidates = [...new Set([...[here, old?.sha256 ?? null].flatMap((s) => (s ? [prefix(s)] : [])), ...(old?.earlier ?? [])])];
    if (head && candidates.length > 0) ask.push({ path, candidates });
  }
  const found = await findVersions(ctx, ask);
  const stale: string[] = [];
  for (const path of paths) {
    if (bases[path]) continue;
    const head = heads.get(path);
    const match = found.get(path);
    const old = ctx.state.bases[path];
    const known = [local(path), old?.sha256 ?? null].flatMap((s) => (s ? [prefix(s)] : [])).concat(old?.earlier ?? []);
    if (match && known.includes(prefix(match.sha256))) {
      bases[path] = match;
      // No base here (lost state) and the file is an older version: a stale copy, not an edit.
      if (!ctx.state.bases[path] && match.sha256 === local(path) && head && head.version > match.version) stale.push(path);
    } else if (head?.deleted) bases[path] = { version: head.version, sha256: null };
    // Deleted here and synced (a tombstone base): the server's live head is older than that delete, which is sent again.
    else if (head && local(path) === null && ctx.state.bases[path]?.sha256 === null) bases[path] = { version: head.version, sha256: head.sha256 };
  }

  // Each new base remembers what the old one held, for a later reconciliation.
  for (const [path, base] of Object.entries(bases)) bases[path] = withEarlier(base, ctx.state.bases[path]);
  ctx.state.bases = bases;
  ctx.state.cursor = cursor;
  ctx.state.server = server;
  // Records about versions of the old history.
  ctx.reports.newerOnServer = [];
  ctx.reports.notWritten = [];
  ctx.reports.conflicts = ctx.reports.conflicts.map((c) => ({ ...c, conflictId: null }));
  await saveNewerOnServer(ctx.layout, []);
  await saveNotWritten(ctx.layout, []);
  await saveConflicts(ctx.layout, ctx.reports.conflicts);
  await saveSyncState(ctx.layout, ctx.state);

  const event: Reconciled = { type: "reconciled", reason, entries: paths.size, fromServer: 0, toSend: 0, toSendKinds: countSendKinds([]) };
  // A folder syncing for the first time says only what is unexpected (stale copies, merges).
  if (reason !== NO_STATE_REASON) ctx.events.push(event);
  for (const path of stale) {
    const head = heads.get(path)!;
    ctx.events.push({ type: "stale-copy", path: displayPath(path), version: bases[path]!.version, headVersion: head.version, deleted: head.deleted });
  }
  const behind = [...heads.values()].filter((h) => (bases[h.path]?.version ?? 0) < h.version);
  let applied = emptyPullOutcome();
  if (ctx.pull === false) {
    // `teammem push` does not pull: the newer heads wait as "newer on server" (the push merges an
    // edited file; the next sync applies the others).
    const at = new Date().toISOString();
    ctx.reports.newerOnServer = behind.map((h) => ({ path: h.path, version: h.version, sha256: h.sha256, at }));
    await saveNewerOnServer(ctx.layout, ctx.reports.newerOnServer);
  } else applied = await applyHeads(ctx, behind.map((h) => h.path));
  const after = await walkTeamScope(ctx.layout);
  const toSend = localChanges(ctx.state.bases, after).map((c) => ({ path: displayPath(c.path), kind: sendKind(ctx.state.bases[c.path], c.content) }));
  Object.assign(event, {
    fromServer: applied.written.length + applied.deleted.length + applied.merged.length + applied.conflicts.length,
    toSend: toSend.length,
    toSendKinds: countSendKinds(toSend.map((t) => t.kind)),
    sending: toSend,
  });
  delete ctx.state.reconcile;
  await saveSyncState(ctx.layout, ctx.state);
  return applied;
}

/** Every head of the namespace, the cursor of the first page and the server it came from (creating the namespace when absent). */
async function readHeads(ctx: SyncContext) {
  const heads = new Map<string, HeadInfo>();
  let first;
  try {
    first = await ctx.api.heads(undefined, HEADS_PAGE);
  } catch (err) {
    if (!(err instanceof ServerError && err.code === "not_found")) throw err;
    await createMissingNamespace(ctx.api, ctx.config.namespace, err);
    first = await ctx.api.heads(undefined, HEADS_PAGE);
  }
  for (let page = first; ; ) {
    for (const h of page.heads) heads.set(h.path, h);
    if (page.nextAfter === null) break;
    page = await ctx.api.heads(page.nextAfter, HEADS_PAGE);
  }
  return { heads, cursor: first.cursor, server: first.server };
}

/** versions/find for `queries`, in pages: per path the newest version holding one of the candidates. */
async function findVersions(ctx: SyncContext, queries: { path: string; candidates: string[] }[]): Promise<Map<string, Base & { sha256: string }>> {
  const found = new Map<string, Base & { sha256: string }>();
  for (let i = 0; i < queries.length; i += FIND_PAGE) {
    const reply = await ctx.api.findVersions({ paths: queries.slice(i, i + FIND_PAGE) });
    for (const f of reply.found) found.set(f.path, { version: f.version, sha256: f.sha256 });
  }
  return found;
}
