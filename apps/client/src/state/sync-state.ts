/**
 * `.teammem/state.json`: how far this folder has pulled and, per entry path, the server version the
 * local file was last known to equal (its base). A base with `sha256: null` is a tombstone.
 */
import { z } from "zod";
import { Cursor, ServerRef, Sha256, Version } from "@teammem/protocol";
import { equalFileStats, FileStat } from "../local/file-stat.js";
import { readTeamFile } from "../local/team-files.js";
import { readJson, saveJsonIfChanged } from "./atomic.js";
import type { Layout } from "./layout.js";
import { clearPullJournal, readPullJournal, type ReadJournaledBase } from "./pull-journal.js";

/** Earlier contents a path's base held, kept for a reconciliation (see {@link advanceBase}). */
export const MAX_EARLIER = 4;

export const Base = z.object({
  version: Version,
  sha256: Sha256.nullable(),
  /**
   * The first 16 hex digits of the sha256 of up to {@link MAX_EARLIER} earlier contents of this
   * path's base, newest first: a reconciliation finds with them where this folder's history meets
   * a restored server's (POST versions/find).
   */
  earlier: z.array(z.string().regex(/^[0-9a-f]{16}$/)).max(MAX_EARLIER).optional(),
  /**
   * The stat cache (`local/file-stat.ts`): the stat of the local file when it was last read and
   * found to hold this base's content. Dropped whenever the base moves (see {@link advanceBase}).
   */
  stat: FileStat.optional(),
});
export type Base = z.infer<typeof Base>;

/** Why a full reconciliation with the server is due (see `sync/reconcile.ts`); kept until it finished. */
export const PendingReconcile = z.object({
  /** e.g. "the server's epoch changed (restored from a backup, reset or moved)". */
  reason: z.string(),
  /** ISO 8601. */
  since: z.string(),
});
export type PendingReconcile = z.infer<typeof PendingReconcile>;

export const SyncState = z.object({
  version: z.literal(1),
  /** Last change cursor whose effects are on disk. */
  cursor: Cursor,
  /**
   * The server identity and epoch `cursor` and the bases' versions come from (absent: never synced,
   * or a state written before servers had one). Another one means the bases no longer name that
   * server's versions: the client reconciles.
   */
  server: ServerRef.optional(),
  /** A reconciliation due or interrupted: the next sync runs it first; `status` says so. */
  reconcile: PendingReconcile.optional(),
  bases: z.record(z.string(), Base),
});
export type SyncState = z.infer<typeof SyncState>;

function emptySyncState(): SyncState {
  return { version: 1, cursor: 0, bases: {} };
}

/**
 * state.json with the pull journal applied (`state/pull-journal.ts`): the files a pull wrote
 * before it stopped (a full disk, a crash) have their bases, in memory, so every command that
 * loads the state classifies them alike (at base, not local creates).
 * @throws StateError when state.json is damaged.
 */
export async function loadSyncState(layout: Layout): Promise<SyncState> {
  const state = (await readJson(layout.syncState, SyncState)) ?? emptySyncState();
  await applyPullJournal(layout, state);
  return state;
}

/** Saves state.json (when it changed), then drops the pull journal, which it now covers. */
export async function saveSyncState(layout: Layout, state: SyncState): Promise<void> {
  await saveJsonIfChanged(layout.syncState, state);
  await clearPullJournal(layout);
}

/**
 * Gives each path of the pull journal the newest journaled version that the pull marked given
 * (whatever its file holds now: it was written, deleted or found at that content, then maybe edited
 * here) or whose content its local file holds (absent, for a tombstone), unless its base is as new
 * (bases never move backwards), as the pull does for a file already equal to the server's version.
 * A path with neither (the pull did not reach it: its file is what this folder had) keeps its base.
 * Changes `state` in memory.
 * @returns how many bases moved.
 */
export async function applyPullJournal(layout: Layout, state: SyncState): Promise<number> {
  const byPath = new Map<string, ReadJournaledBase[]>();
  for (const b of await readPullJournal(layout)) byPath.set(b.path, [...(byPath.get(b.path) ?? []), b]);
  let moved = 0;
  for (const [path, versions] of byPath) {
    const current = state.bases[path]?.version ?? -1;
    if (versions.every((v) => v.version <= current)) continue;
    const local = await readTeamFile(layout, path);
    if (local.kind === "unsafe") continue;
    const localSha = local.kind === "file" ? local.sha256 : null;
    const match = versions
      .filter((v) => (v.given || v.sha256 === localSha) && v.version > current)
      .sort((a, b) => b.version - a.version)[0];
    if (match && advanceBase(state, path, { version: match.version, sha256: match.sha256 })) moved++;
  }
  return moved;
}

/**
 * Sets the base of `path` unless the stored base is newer: bases never move backwards, so a
 * replayed result or an old change cannot undo a newer one.
 * @returns whether the base changed.
 */
export function advanceBase(state: SyncState, path: string, next: Base): boolean {
  const current = state.bases[path];
  if (current && current.version > next.version) return false;
  if (current && current.version === next.version && current.sha256 === next.sha256) return false;
  state.bases[path] = withEarlier({ version: next.version, sha256: next.sha256 }, current);
  return true;
}

/** `next` with the contents `previous` held (its sha256 and its own earlier ones) as its earlier ones. */
export function withEarlier(next: Base, previous: Base | undefined): Base {
  const earlier = [...new Set([...(previous?.sha256 ? [previous.sha256.slice(0, 16)] : []), ...(previous?.earlier ?? [])])]
    .filter((p) => p !== next.sha256?.slice(0, 16))
    .slice(0, MAX_EARLIER);
  return earlier.length > 0 ? { ...next, earlier } : { version: next.version, sha256: next.sha256 };
}

/**
 * Keeps the stat of each read file that holds its base's content with that base (the stat cache,
 * `local/file-stat.ts`), so the next walk need not read it. Files without a `stat` (not read, or
 * changed too recently to trust their stat) leave their base as it is. The caller saves the state.
 * @returns how many bases changed.
 */
export function keepFileStats(state: SyncState, files: Iterable<{ readonly path: string; readonly sha256: string; readonly stat?: FileStat }>): number {
  let changed = 0;
  for (const file of files) {
    const base = state.bases[file.path];
    if (!file.stat || !base || base.sha256 !== file.sha256) continue;
    if (base.stat && equalFileStats(base.stat, file.stat)) continue;
    state.bases[file.path] = { ...base, stat: file.stat };
    changed++;
  }
  return changed;
}
