/** What a push did to the files it was asked about (`teammem push`, agents' hooks). */
import { underEntry } from "../local/team-path.js";
import { displayPath } from "../state/layout.js";
import type { SyncSummary } from "./sync.js";

/** The part of a sync summary about `prefixes`: what happened to each named file. */
export function pushOutcome(summary: SyncSummary, prefixes: readonly string[]) {
  const named = (shown: string) => prefixes.some((p) => underEntry(p === "" ? "" : displayPath(p), shown));
  return {
    ok: !summary.error,
    applied: summary.pushed.applied.filter(named),
    merged: summary.pushed.merged.filter(named),
    conflicts: summary.pushed.conflicts.filter(named),
    rejected: summary.pushed.rejected.filter(named),
    heldBack: summary.heldBack
      .filter((h) => prefixes.some((p) => underEntry(p, h.path)))
      .map((h) => ({
        path: displayPath(h.path),
        findings: h.findings.map((f) => ({ ruleId: f.ruleId, label: f.label, line: f.line, column: f.column })),
        ...(h.pathFindings ? { pathFindings: h.pathFindings.map((f) => ({ ruleId: f.ruleId, label: f.label })) } : {}),
      })),
    /** Merges, conflicts and overrides of the named files (see sync's events). */
    events: summary.events.filter((e) => ("path" in e ? named(e.path) : "from" in e ? named(e.from) || named(e.to) : true)),
    /** Named paths the walk skipped (symlinks, invalid names, special files...): never sent, with why. */
    skipped: summary.skipped.filter((s) => named(s.path)),
    /** Named files not sent because conflict markers are still in them. */
    unresolved: summary.unresolved.filter((u) => named(u.path)),
    pending: summary.pending,
    /** Why the push stopped (the server's code, or network_error), as in `sync --json`. */
    ...(summary.error ? { error: { code: summary.error.code, message: summary.error.message } } : {}),
  };
}

export type PushOutcome = ReturnType<typeof pushOutcome>;
