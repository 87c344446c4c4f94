/**
 * The one scan of a team file before it may leave the machine: its content and its path (a
 * credential in a file or folder name holds the file back like one in its content). The send path
 * (`queueChanges`) and the pre-write guard (`teammem scan --stdin`) both call this, so the guard
 * refuses exactly what a sync would hold back.
 */
import { scan } from "@teammem/scanner";
import { displayPath } from "../state/layout.js";
import type { SyncContext } from "./context.js";

export interface ContentFinding {
  readonly ruleId: string;
  readonly label: string;
  /** 1-based line and column (UTF-16 units) in the content. */
  readonly line: number;
  readonly column: number;
  /** Keyed fingerprint (hex), never the value. */
  readonly fingerprint: string;
}

export interface PathFinding {
  readonly ruleId: string;
  readonly label: string;
  /** 1-based column in the entry path. */
  readonly column: number;
  readonly fingerprint: string;
}

export interface TeamFileScan {
  readonly findings: ContentFinding[];
  readonly pathFindings: PathFinding[];
}

/**
 * Scans the entry path `entryPath` (relative to `team/`) and `content` with the folder's fingerprint
 * key. `allowFingerprints` (the team's approved bypasses) are let through in the content only: the
 * server never accepts a credential in a path. A `teammem:allow` marker on a line is NOT honoured:
 * anyone can type it, so it would let a credential reach every teammate; letting one through is
 * the team's decision, an approved bypass (`teammem bypass`), which the server checks too.
 */
export function scanTeamFile(entryPath: string, content: string, fingerprintKey: string | undefined, allowFingerprints: readonly string[] = []): TeamFileScan {
  const options = { allowMarker: false, ...(fingerprintKey === undefined ? {} : { fingerprintKey }) };
  return {
    findings: scan(content, { ...options, allowFingerprints }).map((f) => ({ ruleId: f.ruleId, label: f.label, line: f.line, column: f.column, fingerprint: f.fingerprint })),
    pathFindings: scan(entryPath, options).map((f) => ({ ruleId: f.ruleId, label: f.label, column: f.column, fingerprint: f.fingerprint })),
  };
}

/**
 * Tells the user (ctx.warn) that team file `path` with content `sha256` is held back, one line per
 * finding, once per run: a sync that queues in more than one round (work queued earlier, then
 * replayed) or re-scans a queued file at send time meets the same file again and says nothing more.
 */
export function warnHeldBack(
  ctx: { readonly warn: SyncContext["warn"]; readonly heldBackWarned: Set<string> },
  path: string,
  sha256: string,
  { findings, pathFindings }: { readonly findings: readonly ContentFinding[]; readonly pathFindings?: readonly PathFinding[] | undefined },
): void {
  const key = `${path}\0${sha256}`;
  if (ctx.heldBackWarned.has(key)) return;
  ctx.heldBackWarned.add(key);
  for (const f of pathFindings ?? []) ctx.warn(`held back ${displayPath(path)}: path holds ${f.ruleId} (${f.label})`, path);
  for (const f of findings) ctx.warn(`held back ${displayPath(path)}:${f.line} ${f.ruleId} (${f.label}) fingerprint ${f.fingerprint}`, path);
}
