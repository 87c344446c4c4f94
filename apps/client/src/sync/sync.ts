/**
 * One sync of a memory folder: pull, then push (queue local changes durably, flush the outbox),
 * then block reports for newly held-back files. Local changes are queued even when the server is
 * unreachable, so nothing is lost and the next sync sends them.
 */
import { redact } from "@teammem/scanner";
import { NetworkError, ServerError } from "../errors.js";
import { teamRootOf, walkTeamScope, type SkippedPath, type TeamScope } from "../scope.js";
import { pruneBaseContents } from "../state/base-store.js";
import { keepFileStats, saveSyncState } from "../state/sync-state.js";
import { saveLastSync } from "../state/last-sync.js";
import { listOutbox, outboxSize } from "../state/outbox.js";
import { displayPath } from "../state/layout.js";
import { saveHeldBack, saveNewerOnServer, type HeldBack } from "../state/reports.js";
import type { SyncContext } from "./context.js";
import { createMissingNamespace } from "./ensure-namespace.js";
import { countSendKinds, type SyncEvent } from "./events.js";
import { flushOutbox, type FlushOutcome } from "./flush.js";
import { checkTeamRoot } from "./mass-delete.js";
import { dropCaughtUp, emptyPullOutcome, pull, serverChangeReason, ServerChanged, type PullOutcome } from "./pull.js";
import { queueChanges } from "./queue-changes.js";
import { hasFilesWithoutState, markReconcileDue, NO_STATE_REASON, reconcile } from "./reconcile.js";
import { renameSource } from "./renames.js";
import { refreshScanPolicy } from "./scan-policy.js";
import { refreshBypasses, sendBypassRequest } from "./bypasses.js";
import type { StoredBypass } from "../state/bypasses.js";
import { checkIdentityFields, sendBlockReport } from "./send-path.js";
import { readServerInfo } from "./server-info.js";
import { healReusedOpIdRecords } from "./sent-operations.js";
import { closeSettledConflicts, dropSettledConflicts, markersLeftIn } from "./settle-conflicts.js";

export interface SyncSummary {
  pulled: PullOutcome;
  /** Results of this run's batches, as display paths per kind. */
  pushed: { applied: string[]; merged: string[]; conflicts: string[]; rejected: string[] };
  /** The `pushed.rejected` files with their code, and where they were refused: `here` by this client (never sent), else by the server. */
  refused: { path: string; code: string; here: boolean }[];
  heldBack: HeldBack[];
  skipped: SkippedPath[];
  /** Display paths with a server version not applied here (the local edit kept it out and was not merged yet). */
  newerOnServer: string[];
  /** What this run did to files that changes what the user last saw (merges, overrides, renames, conflicts, teammates' versions), in order. */
  events: SyncEvent[];
  /** Files not sent because conflict markers are still in them: display path and the line of the first marker. */
  unresolved: { path: string; line: number }[];
  /** Operations still in the outbox at the end. */
  pending: number;
  cursor: number;
  /** The bypass request `--allow` sent (its state as the server answered). */
  bypass?: StoredBypass;
  /**
   * Whether the server answered any request of this run (an error reply too). False with `error`:
   * nothing was pulled or sent, whatever the counts above say (they are zero), and the changes stay queued.
   */
  reached: boolean;
  /** Set when the server could not be reached or refused: the run stopped there, changes stay queued. */
  error?: NetworkError | ServerError;
}

/** Rounds of queue+flush: a path edited while its operation was queued gets its next op in round 2. */
const MAX_ROUNDS = 3;

/**
 * @throws MassDeleteRefused before anything is pulled or sent when `team/` is not a real folder
 *   while entries are tracked, and before anything is queued when the deletes exceed the thresholds
 *   (both unless `ctx.allowMassDelete`).
 */
export async function sync(ctx: SyncContext): Promise<SyncSummary> {
  const allowMassDelete = ctx.allowMassDelete ?? false;
  checkTeamRoot(ctx.layout, await teamRootOf(ctx.layout), ctx.state, allowMassDelete);
  const summary: SyncSummary = {
    pulled: emptyPullOutcome(),
    pushed: { applied: [], merged: [], conflicts: [], rejected: [] },
    refused: [],
    heldBack: [],
    skipped: [],
    newerOnServer: [],
    events: ctx.events,
    unresolved: [],
    pending: 0,
    cursor: ctx.state.cursor,
    reached: false,
  };
  checkIdentityFields(ctx);
  await dropSettledConflicts(ctx);
  // Two independent round trips at once: the server's identity and limits, and the scan policy
  // (the API client sends the second once the server has answered the first: an unreachable server
  // fails both after one deadline, http/api.ts).
  const [info] = await Promise.all([readServerInfo(ctx), refreshScanPolicy(ctx)]);
  await refreshBypasses(ctx);
  if (ctx.allow) {
    try {
      summary.bypass = await sendBypassRequest(ctx, ctx.allow);
    } catch (err) {
      if (!(err instanceof NetworkError || err instanceof ServerError)) throw err;
      summary.error = err;
    }
  }
  const changed = info && serverChangeReason(ctx, info.server);
  if (changed) await markReconcileDue(ctx, changed);
  else if (await hasFilesWithoutState(ctx)) await markReconcileDue(ctx, NO_STATE_REASON);
  else if (info && !ctx.state.server) {
    // The first server this folder syncs with: kept at once (a pull with nothing to apply saves nothing).
    ctx.state.server = info.server;
    await saveSyncState(ctx.layout, ctx.state);
  }
  // Rejections `op_id_reused` left by an older client (try21 F3): healed before the pull meets their versions.
  if (!ctx.state.reconcile) await healReusedOpIdRecords(ctx);
  try {
    if (ctx.state.reconcile) addPulled(summary.pulled, await reconcile(ctx));
    if (ctx.pull !== false) addPulled(summary.pulled, await pullReconciling(ctx));
  } catch (err) {
    if (!(err instanceof NetworkError || err instanceof ServerError)) throw err;
    summary.error = err;
  }
  let reconciledAtPush = false;
  let walked: TeamScope | undefined;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    // Files whose stat is the one kept with their base are not read (the stat cache).
    walked = await walkTeamScope(ctx.layout, ctx.only ? ctx.onlyUnder : undefined, ctx.state.bases, ctx.holdsLock === true);
    summary.skipped = walked.skipped;
    // Allowed to delete everything: a team/ that is a symlink or a file counts as empty, like a missing one.
    const scope: TeamScope = allowMassDelete && walked.root !== "folder" ? { ...walked, skippedEntryPaths: new Set() } : walked;
    // The outbox is read once per round: what was queued before, then what this round queues after it.
    const outbox = await listOutbox(ctx.layout);
    // A queued rename holds its old path too.
    const pending = new Set(outbox.flatMap(({ entry: { operation } }) => [operation.path, ...(renameSource(operation) === null ? [] : [renameSource(operation)!])]));
    const queued = await queueChanges(ctx, scope, pending);
    summary.heldBack = queued.heldBack;
    if (summary.error) break;
    const flushed = await flushOutbox(ctx, [...outbox, ...queued.queued]);
    collect(summary, flushed, ctx);
    if (flushed.error && isStaleCursor(flushed.error) && !reconciledAtPush) {
      // The server changed between the pull and the push: reconcile, then queue and send again.
      reconciledAtPush = true;
      try {
        await markReconcileDue(ctx, STALE_REASON);
        addPulled(summary.pulled, await reconcile(ctx));
      } catch (err) {
        if (!(err instanceof NetworkError || err instanceof ServerError)) throw err;
        summary.error = err;
        break;
      }
      continue;
    }
    if (flushed.error) {
      summary.error = flushed.error;
      break;
    }
    if (queued.deferred.length === 0) break;
  }
  if (!summary.error) {
    await closeSettledConflicts(ctx);
    await sendBlockReports(ctx);
  }
  for (const c of ctx.reports.conflicts) {
    const line = await markersLeftIn(ctx.layout, c);
    if (line !== null) summary.unresolved.push({ path: displayPath(c.path), line });
  }
  settleReconciled(summary);
  settleEditsKept(summary);
  await pruneBaseContents(ctx.layout, ctx.state);
  // A local edit the server merged moved the base past the kept-out version.
  dropCaughtUp(ctx);
  // The files read by the last walk that hold their base's content: the next sync need not read them.
  if (walked && keepFileStats(ctx.state, walked.files.values()) > 0) await saveSyncState(ctx.layout, ctx.state);
  await saveNewerOnServer(ctx.layout, ctx.reports.newerOnServer);
  summary.newerOnServer = ctx.reports.newerOnServer.map((n) => displayPath(n.path));
  summary.pending = await outboxSize(ctx.layout);
  summary.cursor = ctx.state.cursor;
  summary.reached = ctx.api.answered();
  // A push-only run (hooks, watch) did not look at the server's changes: not a sync "as of" which anything is known.
  if (!summary.error && ctx.pull !== false) await saveLastSync(ctx.layout);
  return summary;
}

const STALE_REASON = "the server refused this folder's cursor (stale_cursor): its database was restored, reset or moved";

function isStaleCursor(err: unknown): boolean {
  return err instanceof ServerError && err.code === "stale_cursor";
}

/**
 * Pulls; when the server turns out not to be the one the cursor came from (another identity or
 * epoch in a reply, or `stale_cursor`), reconciles and pulls again from the new cursor.
 */
async function pullReconciling(ctx: SyncContext): Promise<PullOutcome> {
  try {
    return await pullEnsuringNamespace(ctx);
  } catch (err) {
    if (err instanceof ServerChanged) await markReconcileDue(ctx, err.reason);
    else if (isStaleCursor(err)) await markReconcileDue(ctx, STALE_REASON);
    else throw err;
  }
  const reconciled = await reconcile(ctx);
  return addPulled(reconciled, await pullEnsuringNamespace(ctx));
}

/** Adds `more` to `into` (returned). */
function addPulled(into: PullOutcome, more: PullOutcome): PullOutcome {
  into.changes += more.changes;
  for (const key of ["written", "deleted", "merged", "conflicts", "keptLocal", "notWritten"] as const) into[key].push(...more[key].filter((p) => !into[key].includes(p)));
  return into;
}

async function pullEnsuringNamespace(ctx: SyncContext): Promise<PullOutcome> {
  try {
    return await pull(ctx);
  } catch (err) {
    if (!(err instanceof ServerError && err.code === "not_found")) throw err;
    await createMissingNamespace(ctx.api, ctx.config.namespace, err);
    return pull(ctx);
  }
}

function collect(summary: SyncSummary, flushed: FlushOutcome, ctx: SyncContext): void {
  for (const r of flushed.results) {
    const shown = displayPath(r.path);
    if (r.status === "applied") summary.pushed.applied.push(shown);
    else if (r.status === "merged") summary.pushed.merged.push(shown);
    else if (r.status === "conflict") summary.pushed.conflicts.push(shown);
    else {
      summary.pushed.rejected.push(shown);
      const report = ctx.reports.rejected.find((x) => x.path === r.path);
      summary.refused.push({ path: shown, code: report?.code ?? r.code, here: report?.local === true });
    }
  }
}

/** Why `path`, listed as to be sent by a reconciliation, was not taken by the server this sync. */
function notSentReason(summary: SyncSummary, path: string): string {
  const refused = summary.refused.find((r) => r.path === path);
  if (refused) return `${refused.code}, ${refused.here ? "refused here, never sent" : "rejected by the server"}`;
  if (summary.heldBack.some((h) => displayPath(h.path) === path)) return "held back: secret found";
  if (summary.unresolved.some((u) => u.path === path)) return "conflict markers still in it";
  if (summary.error) return "still queued: the next sync sends it";
  return "not sent";
}

/**
 * After the push: an edit kept over a teammate's delete (an event of the pull, before anything was
 * sent) says "sent as a new version" only when the server took it; otherwise its line says why not
 * (held back, rejected by the server, refused here, markers, still queued: try21 F4).
 */
function settleEditsKept(summary: SyncSummary): void {
  const held = new Set(summary.heldBack.map((h) => displayPath(h.path)));
  const taken = new Set([...summary.pushed.applied, ...summary.pushed.merged, ...summary.pushed.conflicts]);
  for (const e of summary.events) {
    if (e.type !== "edit-kept" || taken.has(e.path)) continue;
    if (held.has(e.path)) e.heldBack = true;
    else e.notSent = notSentReason(summary, e.path);
  }
}

/**
 * After the push: each reconciliation's files the server lacked are counted as sent only when the
 * server took them; the others are named with why (refused here, rejected, held back, still queued).
 */
function settleReconciled(summary: SyncSummary): void {
  const taken = new Set([...summary.pushed.applied, ...summary.pushed.merged, ...summary.pushed.conflicts]);
  for (const e of summary.events) {
    if (e.type !== "reconciled" || e.sending === undefined) continue;
    const notSent = e.sending.filter(({ path }) => !taken.has(path)).map(({ path }) => ({ path, reason: notSentReason(summary, path) }));
    e.sent = e.sending.length - notSent.length;
    e.sentKinds = countSendKinds(e.sending.filter(({ path }) => taken.has(path)).map(({ kind }) => kind));
    e.notSent = notSent;
    delete e.sending;
  }
}

/** Tells the server about each held-back file once per content; failures are retried next sync. */
async function sendBlockReports(ctx: SyncContext): Promise<void> {
  let changed = false;
  for (const held of ctx.reports.heldBack) {
    if (held.reported) continue;
    try {
      // The path is reported redacted; a finding in the path is reported at line 1 and its column in the path.
      const sent = await sendBlockReport(ctx, {
        clientId: ctx.config.clientId,
        // Fingerprints made with the team's key carry its id; the local stand-in key's are not kept by the server.
        ...(ctx.scanKey.fingerprintKeyId !== null ? { fingerprintKeyId: ctx.scanKey.fingerprintKeyId } : {}),
        path: redact(held.path),
        sha256: held.sha256,
        findings: [
          ...(held.pathFindings ?? []).map((f) => ({ ruleId: f.ruleId, label: f.label, line: 1, column: f.column, fingerprint: f.fingerprint })),
          ...held.findings.map((f) => ({ ruleId: f.ruleId, label: f.label, line: f.line, column: f.column, fingerprint: f.fingerprint })),
        ],
      });
      if (!sent) {
        ctx.warn(`held-back ${displayPath(held.path)} is not reported to the server: the report would carry a credential`);
        continue;
      }
      held.reported = true;
      changed = true;
    } catch (err) {
      if (!(err instanceof NetworkError || err instanceof ServerError)) throw err;
      if (err instanceof ServerError && err.code === "fingerprint_key_stale") {
        // Rotated during this run: the next sync scans with the new key and reports again.
        await refreshScanPolicy(ctx);
        ctx.warn(`could not report held-back ${displayPath(held.path)}: the team's fingerprint key was rotated; will report again next sync`);
        break;
      }
      if (err instanceof ServerError && err.code === "forbidden") {
        // A read-only token may not write to the audit log; the file is held back all the same.
        held.reported = true;
        changed = true;
        continue;
      }
      ctx.warn(`could not report held-back ${displayPath(held.path)} to the server (${err instanceof ServerError ? err.code : err.reason}); will retry`);
      break;
    }
  }
  if (changed) await saveHeldBack(ctx.layout, ctx.reports.heldBack);
}
