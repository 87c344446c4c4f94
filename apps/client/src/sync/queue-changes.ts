/**
 * Push, first half: finds the team files that differ from their base (new, edited, deleted),
 * scans each one, holds back those with findings and writes an operation for each of the others
 * to the outbox, durably, before anything is sent.
 */
import { randomUUID } from "node:crypto";
import { checkExistingEntryPath } from "@teammem/protocol";
import { firstMarkerLine } from "../merge/markers.js";
import { isSkipped, type TeamScope } from "../scope.js";
import { enqueue, type OutboxEntry, type QueuedOperation } from "../state/outbox.js";
import { saveHeldBack, saveRejected, type HeldBack, type Rejected } from "../state/reports.js";
import type { SyncState } from "../state/sync-state.js";
import type { SyncContext } from "./context.js";
import { checkMassDelete } from "./mass-delete.js";
import { combineRenames } from "./renames.js";
import { scanTeamFile, warnHeldBack } from "./scan-team-file.js";
import { RULE_SET } from "./send-path.js";

interface QueueOutcome {
  /** Operations written to the outbox by this call, in queue order (after every operation queued before). */
  queued: QueuedOperation[];
  /** Entry paths changed again while an operation for them is still queued: queued after it is sent. */
  deferred: string[];
  /** The complete held-back list after this call. */
  heldBack: HeldBack[];
}

interface LocalChange {
  readonly path: string;
  readonly baseVersion: number;
  /** null: deleted locally. */
  readonly content: string | null;
  readonly sha256: string | null;
}

/** The changes of `scope` against the stored `bases`, in path order. */
export function localChanges(bases: SyncState["bases"], scope: TeamScope): LocalChange[] {
  const changes: LocalChange[] = [];
  for (const file of scope.files.values()) {
    const base = bases[file.path];
    if (base?.sha256 === file.sha256) continue;
    // Only a file holding its base's content may come from the stat cache unread.
    if (file.content === undefined) throw new Error(`internal: ${file.path} differs from its base but was not read`);
    changes.push({ path: file.path, baseVersion: base?.version ?? 0, content: file.content, sha256: file.sha256 });
  }
  for (const [path, base] of Object.entries(bases)) {
    if (base.sha256 === null || scope.files.has(path) || isSkipped(scope, path)) continue;
    // A base whose path the protocol now refuses (e.g. `.git/...`, synced before the rule) is never deleted from here;
    // one with an invisible character (pulled before that rule, try17 M4) is: the file was renamed away or deleted, and the
    // server still accepts the delete of such an existing name.
    if (!checkExistingEntryPath(path).ok) continue;
    changes.push({ path, baseVersion: base.version, content: null, sha256: null });
  }
  return changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Whether `before` holds the fingerprints `findings` and `pathFindings` have, in order. */
function sameFingerprints(before: HeldBack, findings: readonly { fingerprint: string }[], pathFindings: readonly { fingerprint: string }[]): boolean {
  const was = [...(before.pathFindings ?? []), ...before.findings].map((f) => f.fingerprint);
  const now = [...pathFindings, ...findings].map((f) => f.fingerprint);
  return was.length === now.length && was.every((f, i) => f === now[i]);
}

/** Whether the server says the token may write now (whoami: member or admin); false when it cannot be asked. */
async function tokenMayWrite(ctx: SyncContext): Promise<boolean> {
  try {
    return (await ctx.api.whoami()).role !== "reader";
  } catch {
    return false; // unreachable or refused: the refusal stands until a sync can ask
  }
}

/**
 * Queues the local changes of `scope` (only the paths `ctx.only` accepts, when set), skipping paths
 * in `pending` (an operation for them is already queued) and files still refused by the server for
 * the same content with a code that a resend cannot fix (`forbidden` only while the token is still
 * read-only: whoami is asked once when such a record is met). Saves the held-back and rejected lists.
 * @throws MassDeleteRefused (nothing queued) when the deletes exceed the mass-delete thresholds.
 */
export async function queueChanges(ctx: SyncContext, scope: TeamScope, pending: ReadonlySet<string>): Promise<QueueOutcome> {
  const only = ctx.only;
  const previousHeld = new Map(ctx.reports.heldBack.map((h) => [h.path, h]));
  const previousRejected = new Map(ctx.reports.rejected.map((r) => [r.path, r]));
  // Paths outside `only` are not looked at: what is known about them stays as it was.
  const heldBack: HeldBack[] = only ? ctx.reports.heldBack.filter((h) => !only(h.path)) : [];
  const rejected: Rejected[] = only ? ctx.reports.rejected.filter((r) => !only(r.path)) : [];
  const queued: OutboxEntry[] = [];
  const deferred: string[] = [];
  const withMarkers = new Set(ctx.reports.conflicts.filter((c) => c.markers === true).map((c) => c.path));
  // Asked once, and only when an edit was refused as forbidden: may the token write now?
  let writable: Promise<boolean> | undefined;
  const mayWrite = () => (writable ??= tokenMayWrite(ctx));
  for (const change of localChanges(ctx.state.bases, scope)) {
    if (only && !only(change.path)) continue;
    // Conflict markers still in the file: not sent until they are gone (the summary and status list it).
    if (change.content !== null && withMarkers.has(change.path) && firstMarkerLine(change.content) !== null) continue;
    if (pending.has(change.path)) {
      deferred.push(change.path);
      const stillRejected = previousRejected.get(change.path);
      if (stillRejected) rejected.push(stillRejected);
      continue;
    }
    if (change.content !== null) {
      // The name is sent too: a credential in a file or folder name holds the file back like one in its content.
      // (A delete only names a path the server already holds, so it is sent.)
      const { findings, pathFindings } = scanTeamFile(change.path, change.content, ctx.scanKey.fingerprintKey, ctx.scanKey.allowFingerprints);
      if (findings.length > 0 || pathFindings.length > 0) {
        const before = previousHeld.get(change.path);
        heldBack.push({
          path: change.path,
          sha256: change.sha256!,
          findings,
          ...(pathFindings.length > 0 ? { pathFindings } : {}),
          // Reported once per content and fingerprint key: after an admin rotates the team's key the
          // fingerprints change, and the audit log gets them under the new key (so an admin can
          // match what a teammate's status shows).
          reported: before !== undefined && before.sha256 === change.sha256 && before.reported && sameFingerprints(before, findings, pathFindings),
        });
        continue;
      }
    }
    const refused = previousRejected.get(change.path);
    // `forbidden` is the token's (read-only) property, not the content's: once the token may write
    // (the admin made the user a member, or a member token was stored), the same content is resent.
    if (refused && refused.sha256 === change.sha256 && !refused.retry && !(refused.code === "forbidden" && (await mayWrite()))) {
      rejected.push(refused);
      continue;
    }
    const opId = randomUUID();
    queued.push({
      operation:
        change.content === null
          ? { opId, path: change.path, baseVersion: change.baseVersion, delete: true }
          : { opId, path: change.path, baseVersion: change.baseVersion, content: change.content, merge: ctx.mergePolicy(change.path) },
      sha256: change.sha256,
      queuedAt: new Date().toISOString(),
      ruleSet: RULE_SET,
    });
  }
  // A queued create (or re-create over a tombstone) whose file is gone is no change against the base
  // yet: when it may have been sent it is replayed as queued, and its result gives the base the
  // deletion is queued against in the next round (try22 T2; an edit or a delete of a file with a
  // base is a change above, deferred there).
  for (const path of pending) {
    if (only && !only(path)) continue;
    if (scope.files.has(path) || isSkipped(scope, path) || (ctx.state.bases[path]?.sha256 ?? null) !== null) continue;
    if (!deferred.includes(path)) deferred.push(path);
  }
  // A delete and a create of (nearly) the same content travel as one rename.
  const operations = await combineRenames(ctx, queued);
  const deletes = operations.flatMap((q) => ("delete" in q.operation ? [q.operation.path] : []));
  checkMassDelete(deletes, ctx.state, ctx.allowMassDelete ?? false);
  const enqueued = await enqueue(ctx.layout, operations);
  for (const h of heldBack) warnHeldBack(ctx, h.path, h.sha256, h);
  const byPath = (x: { path: string }, y: { path: string }) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0);
  heldBack.sort(byPath); // kept entries (outside `only`) and new ones, in path order
  rejected.sort(byPath);
  ctx.reports.heldBack = heldBack;
  ctx.reports.rejected = rejected;
  await saveHeldBack(ctx.layout, heldBack);
  await saveRejected(ctx.layout, rejected);
  return { queued: enqueued, deferred, heldBack };
}
