/**
 * Damaged state files that can be rebuilt (try13 F14): a truncated, garbled or wrongly shaped
 * file of `.teammem/` whose content the server or the folder can give again is moved aside to
 * `<file>.corrupt-<timestamp>` (kept for a look, never deleted), reported in one warning line, and
 * rebuilt: `state.json` (cursor and bases), `not-written.json` and `newer-on-server.json` by a full
 * reconciliation with the server (marked due here; the next sync compares every file by content,
 * so no local edit is lost), the others by the next sync or command that writes them
 * (`last-sync.json`, `scan-policy.json`, `held-back.json`, `rejected.json`, `bypasses.json`,
 * `outbox-seq.json` from the operation files' names).
 *
 * Files that cannot be rebuilt are never moved: `config.json` (client id, token), the queued
 * operations in `outbox/` and `conflicts.json` make a command stop with a StateError naming the
 * file and what to do (see their loaders).
 */
import { rename } from "node:fs/promises";
import type { z } from "zod";
import { StateError } from "../errors.js";
import { readJson, fsyncDir } from "./atomic.js";
import { BypassesFile } from "./bypasses.js";
import { LastSync } from "./last-sync.js";
import type { Layout } from "./layout.js";
import { displayRelative } from "./layout.js";
import { OutboxSeq } from "./outbox.js";
import { HeldBackFile, NewerOnServerFile, NotWrittenFile, RejectedFile } from "./reports.js";
import { StoredScanPolicy } from "./scan-policy.js";
import { loadSyncState, saveSyncState, SyncState } from "./sync-state.js";

interface Rebuildable {
  readonly file: (layout: Layout) => string;
  readonly schema: z.ZodType;
  /** Rebuilt by a full reconciliation (else by the next write of it). */
  readonly reconcile: boolean;
  /** How it is rebuilt, for the warning. */
  readonly rebuilt: string;
}

const REBUILDABLE: readonly Rebuildable[] = [
  { file: (l) => l.syncState, schema: SyncState, reconcile: true, rebuilt: "the next sync compares every team file with the server by content (no local edit is lost)" },
  { file: (l) => l.notWritten, schema: NotWrittenFile, reconcile: true, rebuilt: "the next sync compares every team file with the server by content" },
  { file: (l) => l.newerOnServer, schema: NewerOnServerFile, reconcile: true, rebuilt: "the next sync compares every team file with the server by content" },
  { file: (l) => l.lastSync, schema: LastSync, reconcile: false, rebuilt: "the next sync records its time again" },
  { file: (l) => l.scanPolicy, schema: StoredScanPolicy, reconcile: false, rebuilt: "the next sync fetches the team's scan policy again" },
  { file: (l) => l.heldBack, schema: HeldBackFile, reconcile: false, rebuilt: "the next sync scans the changed files again" },
  { file: (l) => l.rejected, schema: RejectedFile, reconcile: false, rebuilt: "the next sync sends refused files again and records the answers" },
  { file: (l) => l.bypasses, schema: BypassesFile, reconcile: false, rebuilt: "bypass requests sent before are no longer listed by status (the team's policy still applies them)" },
  { file: (l) => l.outboxSeq, schema: OutboxSeq, reconcile: false, rebuilt: "the next number is taken from the queued operations' names" },
];

/** One damaged file: where it was moved (null: left in place, see `moveAside`) and what was wrong with it. */
export interface DamagedFile {
  readonly file: string;
  readonly movedTo: string | null;
  readonly problem: string;
}

/** `<file>.corrupt-<UTC time, no colons>`, e.g. `state.json.corrupt-2026-12-02T08-15-00-123Z`. */
export function asideName(file: string, at = new Date()): string {
  return `${file}.corrupt-${at.toISOString().replace(/[:.]/g, "-")}`;
}

/**
 * Finds the damaged rebuildable state files of a set-up folder; with `moveAside` (default true)
 * moves each aside, marks a reconciliation due when one needs it, and warns once per file
 * (`warn` gets one line, without a `teammem:` prefix). Without `moveAside` (a dry run, which writes
 * nothing) it only warns that a sync would do so. Run it before loading state, under the command's
 * lock where the command takes one.
 * @returns the damaged files found.
 * @throws what reading or renaming throws besides damage (e.g. EACCES).
 */
export async function recoverDamagedState(layout: Layout, warn: (line: string) => void, moveAside = true): Promise<DamagedFile[]> {
  const damaged: DamagedFile[] = [];
  let reasons: string[] = [];
  for (const r of REBUILDABLE) {
    const file = r.file(layout);
    try {
      await readJson(file, r.schema);
      continue;
    } catch (err) {
      if (!(err instanceof StateError)) throw err;
      const shown = displayRelative(file);
      if (!moveAside) {
        warn(`warning: state file ${shown} is damaged (${err.problem}); a sync moves it aside and rebuilds it (${r.rebuilt})`);
        damaged.push({ file, movedTo: null, problem: err.problem });
        continue;
      }
      const movedTo = asideName(file);
      await rename(file, movedTo);
      await fsyncDir(layout.state);
      warn(`warning: state file ${shown} was damaged (${err.problem}); moved aside to ${displayRelative(movedTo)} and rebuilt: ${r.rebuilt}`);
      damaged.push({ file, movedTo, problem: err.problem });
      if (r.reconcile) reasons = [...reasons, `${shown.split("/").pop()} was damaged and moved aside`];
    }
  }
  if (reasons.length > 0) {
    const state = await loadSyncState(layout);
    state.reconcile ??= { reason: `${reasons.join(", ")}: its files are compared with the server's by content`, since: new Date().toISOString() };
    await saveSyncState(layout, state);
  }
  return damaged;
}
