/**
 * `teammem sync --dry-run`: what a sync would do now, found without doing any of it. Reads the
 * state folder, walks and scans the team scope as the send path would (same scan, same key), and
 * reads the server's change feed since the stored cursor (GET only). Writes nothing: no file in
 * the folder, no state file, no lock, no outbox entry, no block report, no namespace creation.
 *
 * It is a forecast: a teammate's push between the dry run and the sync changes the outcome, and
 * merges are named (`merge`) but not computed.
 */
import { NetworkError, ProtocolError, ServerError, StateError } from "../errors.js";
import type { Api } from "../http/api.js";
import { readTeamFile } from "../local/team-files.js";
import { firstMarkerLine } from "../merge/markers.js";
import { walkTeamScope } from "../scope.js";
import type { Config } from "../state/config.js";
import { displayPath, type Layout } from "../state/layout.js";
import { listOutbox, sentOpIds } from "../state/outbox.js";
import { loadReports } from "../state/reports.js";
import { loadScanPolicy, scanKeyOf, type ScanKey } from "../state/scan-policy.js";
import { advanceBase, loadSyncState, type SyncState } from "../state/sync-state.js";
import { checkMassDelete, checkTeamRoot, MassDeleteRefused } from "./mass-delete.js";
import { localChanges } from "./queue-changes.js";
import { pairRenames, type RenameCandidate } from "../merge/similarity.js";
import { readBaseContent } from "../state/base-store.js";
import { renameSource } from "./renames.js";
import { scanTeamFile } from "./scan-team-file.js";
import { queuedAtSendTime } from "./send-path.js";

/** A server change the pull would apply: written over an unchanged file, deleted, merged with a local edit, or already equal here. */
export interface PlannedPull {
  readonly path: string;
  readonly version: number;
  readonly author: string;
  readonly action: "write" | "delete" | "merge" | "unchanged";
  /** Set for a teammate's rename: the path it moved from. */
  readonly renamedFrom?: string;
}

/** An operation the push would send: one queued already, or one a local change would queue. */
export interface PlannedSend {
  readonly path: string;
  readonly action: "create" | "edit" | "delete" | "rename";
  /** The server version the change starts from (0: new). */
  readonly baseVersion: number;
  /** Already in the outbox (from an earlier run that could not send it). */
  readonly queued: boolean;
  readonly renamedFrom?: string;
}

export interface DryRunPlan {
  readonly pull: PlannedPull[];
  readonly send: PlannedSend[];
  /** Files a credential would hold back (rule and position, never the value). */
  readonly heldBack: { path: string; findings: { ruleId: string; label: string; line: number; column: number }[]; pathFindings: { ruleId: string; label: string }[] }[];
  /** Files not sent because conflict markers are still in them. */
  readonly unresolved: { path: string; line: number }[];
  /**
   * Queued operations the send path would not send now: `deleted`, the file was deleted before it
   * was sent and the server never had it (dropped); `unreadable`, it cannot be read safely now
   * (kept queued).
   */
  readonly dropped: { path: string; reason: "deleted" | "unreadable" }[];
  /** Files the server refused before with the same content: not sent again. */
  readonly notResent: { path: string; code: string }[];
  /**
   * Operations the server would refuse as `forbidden` because the token is read-only (a reader):
   * the sync records them as rejected and sends them again once the file changes and the token may
   * write. Empty when the token may write (asked with GET whoami when there is something to send).
   */
  readonly forbidden: { path: string; action: PlannedSend["action"] }[];
  /** The sync would refuse as a mass delete (nothing pulled or sent): its message. */
  readonly refused: { code: string; message: string } | null;
  /** The namespace does not exist on the server yet (the sync would create it). */
  readonly namespaceMissing: boolean;
  /**
   * The sync would reconcile every entry by content instead of pulling: a reconciliation is due
   * (`state.json`), the folder has files but no sync state, the server names another identity or epoch than this folder synced with, or it
   * refused this folder's cursor (`stale_cursor`: restored, reset or replaced).
   */
  readonly reconcile: boolean;
  /** Operations in the outbox now. */
  readonly pending: number;
  readonly cursor: number;
  /** The change feed could not be read: the pull part is unknown. */
  readonly error?: NetworkError | ServerError;
}

const byPath = <T extends { path: string }>(x: T, y: T) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0);

/** The latest change per path since `cursor` (all pages), or what stopped reading them. */
async function pendingChanges(api: Api, cursor: number, pageSize: number) {
  const latest = new Map<string, Awaited<ReturnType<Api["changes"]>>["changes"][number]>();
  let since = cursor;
  for (;;) {
    const page = await api.changes(since, Math.min(pageSize, api.replies.entriesPerReply));
    for (const change of page.changes) latest.set(change.path, change);
    if (!page.hasMore || page.changes.length === 0 || page.nextCursor <= since) break;
    since = page.nextCursor;
  }
  return [...latest.values()];
}

/** The dry run's held-back line for `path` when scanning it (content and path) finds a credential, else null. */
function heldBackEntry(path: string, content: string, key: ScanKey): DryRunPlan["heldBack"][number] | null {
  const { findings, pathFindings } = scanTeamFile(path, content, key.fingerprintKey, key.allowFingerprints);
  if (findings.length === 0 && pathFindings.length === 0) return null;
  return {
    path: displayPath(path),
    findings: findings.map((f) => ({ ruleId: f.ruleId, label: f.label, line: f.line, column: f.column })),
    pathFindings: pathFindings.map((f) => ({ ruleId: f.ruleId, label: f.label })),
  };
}

/**
 * Plans one sync of `layout` (see the module comment).
 * @param allowMassDelete as `--allow-mass-delete`.
 */
export async function planSync(layout: Layout, config: Config, api: Api, allowMassDelete: boolean, pullPageSize = 500): Promise<DryRunPlan> {
  // A damaged state.json or scan-policy.json (the command warned): a sync would move it aside and reconcile, or fetch the policy again.
  const state: SyncState = await loadSyncState(layout).catch((err: unknown) => {
    if (!(err instanceof StateError)) throw err;
    return { version: 1 as const, cursor: 0, bases: {}, reconcile: { reason: "state.json is damaged", since: new Date().toISOString() } };
  });
  const reports = await loadReports(layout, true);
  const key = scanKeyOf(config, await loadScanPolicy(layout).catch((err: unknown) => (err instanceof StateError ? undefined : Promise.reject(err))));
  const outbox = await listOutbox(layout);
  const scope = await walkTeamScope(layout);

  let refused: DryRunPlan["refused"] = null;
  try {
    checkTeamRoot(layout, scope.root, state, allowMassDelete);
  } catch (err) {
    if (!(err instanceof MassDeleteRefused)) throw err;
    refused = { code: err.code, message: err.message };
  }

  const pull: PlannedPull[] = [];
  let namespaceMissing = false;
  // Due as sync.ts decides it: pending in state.json, or files in a folder with no sync state at all (first sync, lost state folder).
  let reconcile =
    state.reconcile !== undefined ||
    (state.server === undefined && state.cursor === 0 && Object.keys(state.bases).length === 0 && outbox.length === 0 && scope.files.size > 0);
  let error: NetworkError | ServerError | undefined;
  if (refused === null && !reconcile) {
    try {
      const { server, limits } = await api.serverInfo();
      // Replies as large as the server's entry limit makes them (http/reply-cap.ts).
      api.replies.useEntryLimit(limits.maxEntryBytes);
      reconcile = state.server !== undefined && (server.id !== state.server.id || server.epoch !== state.server.epoch);
    } catch (err) {
      // Unreachable or an older server: the change feed below tells.
      if (!(err instanceof NetworkError || err instanceof ServerError || err instanceof ProtocolError)) throw err;
    }
  }
  if (refused === null && !reconcile) {
    try {
      for (const change of await pendingChanges(api, state.cursor, pullPageSize)) {
        const base = state.bases[change.path];
        if (base && base.version >= change.version) continue; // this folder's own change, already here
        const local = await readTeamFile(layout, change.path);
        const localSha = local.kind === "file" ? local.sha256 : local.kind === "absent" ? null : "unsafe";
        const action: PlannedPull["action"] =
          localSha === change.sha256 ? "unchanged" : localSha !== (base?.sha256 ?? null) ? "merge" : change.deleted ? "delete" : "write";
        // The pull gives a file already equal to the server's version that base (in memory here):
        // the push forecast below then no more takes it for a local change than the sync does.
        if (action === "unchanged") advanceBase(state, change.path, { version: change.version, sha256: change.sha256 });
        pull.push({
          path: displayPath(change.path),
          version: change.version,
          author: change.author,
          action,
          ...(change.renamedFrom !== undefined ? { renamedFrom: displayPath(change.renamedFrom) } : {}),
        });
      }
    } catch (err) {
      if (err instanceof ServerError && err.code === "not_found") namespaceMissing = true;
      else if (err instanceof ServerError && err.code === "stale_cursor") reconcile = true;
      else if (err instanceof NetworkError || err instanceof ServerError) error = err;
      else throw err;
    }
  }

  const send: PlannedSend[] = [];
  const queuedPaths = new Set<string>();
  const heldBack: DryRunPlan["heldBack"] = [];
  const unresolved: DryRunPlan["unresolved"] = [];
  const notResent: (DryRunPlan["notResent"][number] & Pick<PlannedSend, "action" | "baseVersion">)[] = [];
  const dropped: DryRunPlan["dropped"] = [];
  const withMarkers = new Set(reports.conflicts.filter((c) => c.markers === true).map((c) => c.path));
  const sent = await sentOpIds(layout);
  for (const { entry } of outbox) {
    const queuedOp = entry.operation;
    queuedPaths.add(queuedOp.path);
    const queuedFrom = renameSource(queuedOp);
    if (queuedFrom !== null) queuedPaths.add(queuedFrom);
    // As the send path will find it: the file re-read now (gone, changed, unchanged), rescanned when it changed.
    const file = "content" in queuedOp ? await readTeamFile(layout, queuedOp.path) : null;
    const now = queuedAtSendTime(entry, file, withMarkers.has(queuedOp.path), sent.has(queuedOp.opId));
    if (now.kind === "unreadable") {
      dropped.push({ path: displayPath(queuedOp.path), reason: "unreadable" });
      continue;
    }
    if (now.kind === "gone") {
      dropped.push({ path: displayPath(queuedOp.path), reason: "deleted" });
      continue;
    }
    if (now.kind === "markers") {
      unresolved.push({ path: displayPath(queuedOp.path), line: file?.kind === "file" ? (firstMarkerLine(file.content) ?? 1) : 1 });
      continue;
    }
    const op = now.entry.operation;
    if (now.rescan && "content" in op) {
      const held = heldBackEntry(op.path, op.content, key);
      if (held) {
        heldBack.push(held);
        continue;
      }
    }
    const from = renameSource(op);
    send.push({
      path: displayPath(op.path),
      action: from !== null ? "rename" : "delete" in op ? "delete" : op.baseVersion === 0 ? "create" : "edit",
      baseVersion: op.baseVersion,
      queued: true,
      ...(from !== null ? { renamedFrom: displayPath(from) } : {}),
    });
  }
  let deletes: string[] = [];
  const creates: RenameCandidate[] = [];
  for (const change of localChanges(state.bases, scope)) {
    if (queuedPaths.has(change.path)) continue; // sent after the queued operation, by a later round
    if (change.content !== null) {
      const marker = withMarkers.has(change.path) ? firstMarkerLine(change.content) : null;
      if (marker !== null) {
        unresolved.push({ path: displayPath(change.path), line: marker });
        continue;
      }
      const held = heldBackEntry(change.path, change.content, key);
      if (held) {
        heldBack.push(held);
        continue;
      }
    }
    const rejected = reports.rejected.find((r) => r.path === change.path);
    const action = change.content === null ? "delete" : (state.bases[change.path]?.sha256 ?? null) === null ? "create" : "edit";
    if (rejected && rejected.sha256 === change.sha256 && !rejected.retry) {
      notResent.push({ path: displayPath(change.path), code: rejected.code, action, baseVersion: change.baseVersion });
      continue;
    }
    if (change.content === null) deletes.push(change.path);
    if (action === "create") creates.push({ path: change.path, sha256: change.sha256!, text: change.content! });
    send.push({ path: displayPath(change.path), action, baseVersion: change.baseVersion, queued: false });
  }
  // As the sync queues them: a delete and a create of (nearly) the same content are one rename,
  // which is no delete (moving many files into a folder is not a mass delete).
  const renames = await pairedRenames(layout, state, deletes, creates);
  if (renames.size > 0) {
    const moved = new Map([...renames].map(([to, from]) => [displayPath(from), displayPath(to)]));
    const renamedTo = new Map([...renames].map(([to, from]) => [displayPath(to), displayPath(from)]));
    const kept = send.filter((s) => s.queued || s.action !== "delete" || !moved.has(s.path));
    send.length = 0;
    for (const s of kept) {
      const from = s.queued || s.action !== "create" ? undefined : renamedTo.get(s.path);
      send.push(from === undefined ? s : { ...s, action: "rename", renamedFrom: from });
    }
    const sources = new Set(renames.values());
    deletes = deletes.filter((path) => !sources.has(path));
  }
  // As the sync does: ask the server once whether the token may write (a reader's batch is refused
  // as a whole), and only when it matters: something to send, or an edit refused as forbidden
  // before, which the sync resends unchanged once the token may write.
  const forbidden: DryRunPlan["forbidden"] = [];
  const refusedForbidden = notResent.filter((r) => r.code === "forbidden");
  if (send.length > 0 || refusedForbidden.length > 0) {
    const mayWrite = await tokenMayWrite(api);
    if (mayWrite === false) {
      for (const s of send) forbidden.push({ path: s.path, action: s.action });
      send.length = 0;
    } else if (mayWrite === true && refusedForbidden.length > 0) {
      for (const r of refusedForbidden) {
        notResent.splice(notResent.indexOf(r), 1);
        send.push({ path: r.path, action: r.action, baseVersion: r.baseVersion, queued: false });
      }
    }
  }
  if (refused === null) {
    try {
      checkMassDelete(deletes, state, allowMassDelete);
    } catch (err) {
      if (!(err instanceof MassDeleteRefused)) throw err;
      refused = { code: err.code, message: err.message };
    }
  }
  return {
    pull: pull.sort(byPath),
    send: send.sort(byPath),
    heldBack: heldBack.sort(byPath),
    unresolved,
    notResent: notResent.map(({ path, code }) => ({ path, code })),
    forbidden: forbidden.sort(byPath),
    dropped,
    refused,
    namespaceMissing,
    reconcile,
    pending: outbox.length,
    cursor: state.cursor,
    ...(error ? { error } : {}),
  };
}

/**
 * The renames the sync would find among `deletes` (entry paths deleted here) and `creates` (new
 * files), paired as `combineRenames` pairs them (the deleted file's text from the base store).
 * @returns created path → deleted path.
 */
export async function pairedRenames(layout: Layout, state: SyncState, deletes: readonly string[], creates: readonly RenameCandidate[]): Promise<Map<string, string>> {
  if (deletes.length === 0 || creates.length === 0) return new Map();
  const deleted: RenameCandidate[] = [];
  for (const path of deletes) {
    const sha256 = state.bases[path]?.sha256;
    if (sha256) deleted.push({ path, sha256, text: await readBaseContent(layout, sha256) });
  }
  return new Map(pairRenames(deleted, creates).map(([from, to]) => [to, from]));
}

/**
 * Whether the token may write, as the sync finds out: GET whoami (role other than reader).
 * @returns undefined when the server could not tell (unreachable, refused): the forecast keeps the
 *   sends as they are, and a refusal recorded before stands, as in the sync.
 */
async function tokenMayWrite(api: Api): Promise<boolean | undefined> {
  try {
    return (await api.whoami()).role !== "reader";
  } catch (err) {
    if (err instanceof NetworkError || err instanceof ServerError || err instanceof ProtocolError) return undefined;
    throw err;
  }
}
