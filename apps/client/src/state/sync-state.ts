/**
 * `.teammem/state.json`: how far this folder has pulled and, per entry path, the server version the
 * local file was last known to equal (its base). A base with `sha256: null` is a tombstone.
 */
import { z } from "zod";
import { Cursor, Sha256, Version } from "@teammem/protocol";
import { readJson, writeJsonAtomic } from "./atomic.js";
import type { Layout } from "./layout.js";

export const Base = z.object({ version: Version, sha256: Sha256.nullable() });
export type Base = z.infer<typeof Base>;

export const SyncState = z.object({
  version: z.literal(1),
  /** Last change cursor whose effects are on disk. */
  cursor: Cursor,
  bases: z.record(z.string(), Base),
});
export type SyncState = z.infer<typeof SyncState>;

function emptySyncState(): SyncState {
  return { version: 1, cursor: 0, bases: {} };
}

export async function loadSyncState(layout: Layout): Promise<SyncState> {
  return (await readJson(layout.syncState, SyncState)) ?? emptySyncState();
}

export async function saveSyncState(layout: Layout, state: SyncState): Promise<void> {
  await writeJsonAtomic(layout.syncState, state);
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
  state.bases[path] = next;
  return true;
}
