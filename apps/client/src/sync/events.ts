/**
 * What a sync did to the files of `team/` that the user may not expect: every outcome that
 * changes what they last saw (a teammate's version written, a merge, an override, a rename, a
 * conflict). The summary prints one line per event; `--json` carries the list as is.
 * Paths are display paths (`team/...`, credentials redacted); `author` is the teammate's name as
 * the server recorded it ("" when unknown); `version` the server version involved.
 */
import type { MergeRefusalCode, WireFinding } from "@teammem/protocol";

/** A teammate's version written to a file that was unchanged here (created, updated or deleted). */
interface TeammateChange {
  readonly type: "created" | "updated" | "deleted";
  readonly path: string;
  readonly author: string;
  readonly version: number;
}

/** Your local edit and a teammate's version were merged into the file (by this client at pull, or by the server at push). */
interface Merged {
  readonly type: "merged";
  readonly path: string;
  readonly author: string;
  readonly version: number;
  /** Concurrent insertions at one point were kept both (policy union). */
  readonly union: boolean;
}

/** Overlapping edits: both texts are in the file between conflict markers (`copy`: your side saved whole). */
interface Conflicted {
  readonly type: "conflict";
  readonly path: string;
  readonly author: string;
  readonly version: number;
  /** Your version as it was, relative to the memory folder (`.teammem/conflicts/...`). */
  readonly copy: string | null;
  /** The version both edits started from, when its content was purged from the server's history: the texts were compared whole. */
  readonly basePurged?: number;
  /**
   * The edits merge line by line, but the server did not store the merge: it would hold a
   * credential (`merge_holds_credential`, findings: rule and line, never the value) or be too large.
   */
  readonly refusal?: { readonly code: MergeRefusalCode; readonly findings?: readonly WireFinding[] };
}

/** Your delete was not applied: a teammate edited the file meanwhile, their version is written back. */
interface DeleteOverridden {
  readonly type: "delete-overridden";
  readonly path: string;
  readonly author: string;
  readonly version: number;
}

/**
 * A teammate deleted the file while you edited it: your edit keeps it, sent as a new version by this
 * sync's push. Set once the push ran (try21 F4: the line agrees with the push result): `heldBack`,
 * not sent, a credential is in it; `notSent`, not sent for another reason (rejected by the server
 * and its code, refused here, conflict markers in it, still queued).
 */
interface EditKept {
  readonly type: "edit-kept";
  readonly path: string;
  readonly author: string;
  readonly version: number;
  heldBack?: boolean;
  notSent?: string;
}

/** A teammate renamed a file; `followed`: your edit of the old path moved with it (merged there). */
interface Renamed {
  readonly type: "renamed";
  readonly from: string;
  readonly to: string;
  readonly author: string;
  readonly version: number;
  readonly followed: boolean;
  /**
   * Set when you had removed the old path here too (not sent yet): `deleted`, you deleted it (the
   * file lives on at `to`); `renamed`, you renamed it to `renamedHereTo` (both paths now exist).
   */
  readonly removedHere?: "deleted" | "renamed";
  readonly renamedHereTo?: string;
}

/** Your delete + create of (nearly) the same content went to the server as one rename. */
interface RenameSent {
  readonly type: "rename-sent";
  readonly from: string;
  readonly to: string;
  readonly version: number;
}

/** A conflict was settled here (markers removed, file synced): the server's conflict record is closed. */
interface ConflictClosed {
  readonly type: "conflict-closed";
  readonly path: string;
  readonly version: number;
}

/**
 * What a reconciliation sends for one local file: `missing`, a file the server lacks (never had, or
 * deleted there); `edited`, a file the server has, edited here (a new version of it); `deleted`, a
 * file the server has, deleted here (its delete). (try18 F9: an edited file is not one the server lacks.)
 */
export type ReconcileSendKind = "missing" | "edited" | "deleted";

/** Files per {@link ReconcileSendKind}. */
export type ReconcileSendCounts = Record<ReconcileSendKind, number>;

/**
 * A full reconciliation with the server ran (`sync/reconcile.ts`): every entry compared by content
 * hash. `entries`: paths compared; `fromServer`: server heads applied here (written, merged or
 * deleted); `toSend`: local files differing from the server's, to be sent as new versions by this
 * sync's push, `toSendKinds` the same per kind (the server lacks it, edited here, deleted here);
 * after the push, `sent` and `sentKinds`: how many of them the server took, `notSent`: the others
 * (display path, and why: refused here over the server's limits, rejected by the server, held
 * back, still queued). `sending` (display paths of `toSend`, with their kind) is internal to a sync
 * run: removed once its push ran.
 */
export interface Reconciled {
  readonly type: "reconciled";
  readonly reason: string;
  readonly entries: number;
  readonly fromServer: number;
  readonly toSend: number;
  readonly toSendKinds: ReconcileSendCounts;
  sent?: number;
  sentKinds?: ReconcileSendCounts;
  notSent?: { path: string; reason: string }[];
  sending?: { path: string; kind: ReconcileSendKind }[];
}

/** Counts of `kinds`, per kind. */
export function countSendKinds(kinds: readonly ReconcileSendKind[]): ReconcileSendCounts {
  const counts: ReconcileSendCounts = { missing: 0, edited: 0, deleted: 0 };
  for (const k of kinds) counts[k] += 1;
  return counts;
}

/** "1 local file(s) the server lacks, 2 file(s) edited here and 1 file(s) deleted here sent as new versions"; "nothing sent" when all are 0. */
function describeSent(c: ReconcileSendCounts): string {
  const parts = [
    ...(c.missing ? [`${c.missing} local file(s) the server lacks`] : []),
    ...(c.edited ? [`${c.edited} file(s) edited here`] : []),
    ...(c.deleted ? [`${c.deleted} file(s) deleted here`] : []),
  ];
  if (parts.length === 0) return "nothing sent";
  const listed = parts.length === 1 ? parts[0]! : `${parts.slice(0, -1).join(", ")} and ${parts[parts.length - 1]!}`;
  return `${listed} sent as new versions`;
}

/**
 * A file this folder had no base for (lost state) holds exactly version `version` of the server's
 * history: a stale copy, not an edit; the server's newer head `headVersion` is taken (`deleted`: it is a tombstone).
 */
interface StaleCopy {
  readonly type: "stale-copy";
  readonly path: string;
  readonly version: number;
  readonly headVersion: number;
  readonly deleted: boolean;
}

/**
 * An admin purged `versions` of the entry from the server's history (`by`, `reason`); `dropped`:
 * local copies of that content removed from `.teammem/` (base and conflict copies).
 */
interface Purged {
  readonly type: "purged";
  readonly path: string;
  readonly versions: readonly number[];
  readonly by: string;
  readonly reason: string;
  readonly dropped: number;
}

/**
 * An admin (`by`, "" when unknown) revoked the bypass this folder asked for (`sync --allow`) for the
 * secret found at `path`:`line` by `ruleId`, with their `note` (null: none given). Files holding
 * that secret are held back again. Reported by the first sync that sees it.
 */
interface BypassRevoked {
  readonly type: "bypass-revoked";
  readonly path: string;
  readonly line: number;
  readonly ruleId: string;
  readonly by: string;
  readonly note: string | null;
}

/**
 * An admin (`by`, "" when unknown; or the team's `immediate` policy) decided the bypass this folder
 * asked for (`sync --allow`) for the secret found at `path`:`line` by `ruleId`: `approved` (the
 * file is sent by this sync: the scan policy now lets that value through) or `denied`, with their
 * `note` (null: none given). Reported by the first sync that sees the decision.
 */
interface BypassDecided {
  readonly type: "bypass-decided";
  readonly path: string;
  readonly line: number;
  readonly ruleId: string;
  readonly status: "approved" | "denied";
  readonly by: string;
  readonly note: string | null;
}

export type SyncEvent = BypassDecided | BypassRevoked | Purged | Reconciled | StaleCopy | TeammateChange | Merged | Conflicted | DeleteOverridden | EditKept | Renamed | RenameSent | ConflictClosed;

/**
 * Whether `e` is routine news the summary may count instead of printing: a teammate's version of a
 * file untouched here (created, updated, deleted), a plain rename by a teammate, your own rename
 * sent. Every other event (decided or revoked bypasses, purges, merges, conflicts, overridden deletes, edits that keep a deleted
 * file, reconciliations, stale copies, settled conflicts, renames that met a local edit or delete)
 * is something the user must know or act on: always printed.
 */
export function isRoutineEvent(e: SyncEvent): boolean {
  switch (e.type) {
    case "created":
    case "updated":
    case "deleted":
    case "rename-sent":
      return true;
    case "renamed":
      return !e.followed && e.removedHere === undefined;
    default:
      return false;
  }
}

const who = (author: string) => author || "a teammate";
/** "together they would hold a credential (twilio-api-key, line 7)", or the merge would be too large. */
function refusalReason(r: { readonly code: MergeRefusalCode; readonly findings?: readonly WireFinding[] }): string {
  if (r.code === "entry_too_large") return "the merged text would exceed the server's entry size limit";
  const where = (r.findings ?? []).map((f) => `${f.ruleId}, line ${f.line}`).join("; ");
  return `together they would hold a credential${where ? ` (${where})` : ""}; remove it`;
}
const whose = (author: string) => (author ? `${author}'s` : "a teammate's");

/** The line the summary prints for `event`. */
export function describeEvent(e: SyncEvent): string {
  switch (e.type) {
    case "reconciled":
      return (
        `reconciled with the server (${e.reason}): compared ${e.entries} entr${e.entries === 1 ? "y" : "ies"} by content; ` +
        `${e.fromServer} taken from the server, ${describeSent(e.sentKinds ?? e.toSendKinds)}` +
        (e.notSent?.length ? `; not sent: ${e.notSent.map((n) => `${n.path} (${n.reason})`).join(", ")}` : "")
      );
    case "stale-copy":
      return (
        `${e.path}: your copy is version ${e.version} of the server's history, a stale copy and not an edit; ` +
        `the server's newer state is taken (${e.deleted ? "deleted" : "updated"} in v${e.headVersion})`
      );
    case "created":
    case "updated":
    case "deleted":
      return `${e.path} ${e.type} by ${who(e.author)} (v${e.version})`;
    case "merged":
      return `${e.path}: your edit merged with ${whose(e.author)} edit (v${e.version})${e.union ? "; lines added on both sides kept both" : ""}`;
    case "conflict":
      return (
        (e.refusal !== undefined
          ? `${e.path}: your edit and ${whose(e.author)} edit (v${e.version}) merge line by line, but ${refusalReason(e.refusal)}, so the server kept them apart: both are in the file between `
          : e.basePurged !== undefined
          ? `${e.path}: your edit and ${whose(e.author)} edit (v${e.version}) cannot be merged line by line (v${e.basePurged}, the version both started from, was purged from the server's history): where they differ, both are in the file between `
          : `${e.path}: your edit and ${whose(e.author)} edit (v${e.version}) changed the same lines: both are in the file between `) +
        `<<<<<<< and >>>>>>> markers; keep what you want and remove the markers, then sync (or teammem resolve ${e.path} --take mine|theirs)` +
        (e.copy ? `; your version as it was: ${e.copy}` : "")
      );
    case "delete-overridden":
      return `your delete of ${e.path} was overridden by ${whose(e.author)} edit (v${e.version})`;
    case "edit-kept":
      return (
        `${who(e.author)} deleted ${e.path} (v${e.version}); your edit keeps it ` +
        (e.heldBack
          ? "here (held back: not sent until the credential is removed)"
          : e.notSent !== undefined
          ? `here, not sent: ${e.notSent} (see teammem status)`
          : "(sent as a new version)")
      );
    case "renamed":
      return (
        `${e.from} was renamed to ${e.to} by ${who(e.author)}${e.followed ? "; your edit of it moved there too" : ""}` +
        (e.removedHere === "deleted" ? `; your delete of ${e.from} does not remove ${e.to} (delete it there if you meant to)` : "") +
        (e.removedHere === "renamed" ? `; you renamed it to ${e.renamedHereTo ?? "another path"}: both ${e.to} and your copy are kept (remove one)` : "")
      );
    case "rename-sent":
      return `${e.from} renamed to ${e.to} (v${e.version})`;
    case "purged":
      return (
        `${e.path}: version${e.versions.length === 1 ? "" : "s"} ${e.versions.map((v) => `v${v}`).join(", ")} purged from the server's history by ${who(e.by)} (${e.reason})` +
        (e.dropped > 0 ? `; ${e.dropped} local cop${e.dropped === 1 ? "y" : "ies"} of that content dropped` : "")
      );
    case "conflict-closed":
      return `conflict on ${e.path} settled; the server's conflict record is closed (v${e.version})`;
    case "bypass-decided":
      return `bypass for ${e.path}:${e.line} ${e.ruleId} was ${e.status}${e.by ? ` by ${e.by}` : ""}${e.note ? `: ${e.note}` : ""}`;
    case "bypass-revoked":
      return (
        `bypass for ${e.path}:${e.line} ${e.ruleId} was revoked by ${e.by || "an admin"}${e.note ? `: ${e.note}` : ""}; ` +
        "files holding that secret are held back again (remove it to send them)"
      );
  }
}
