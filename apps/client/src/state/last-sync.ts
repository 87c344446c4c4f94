/**
 * `.teammem/last-sync.json`: `{ "at": "<ISO 8601>" }`, when this folder last finished a sync that
 * pulled and pushed without a network or server error, including one that changed nothing. It is
 * what `status` means by "as of the last sync". (state.json is rewritten only when it changes, so
 * its mtime stays at the last sync that moved something.)
 */
import { z } from "zod";
import { readJson, writeFileAtomic } from "./atomic.js";
import type { Layout } from "./layout.js";

export const LastSync = z.object({ at: z.iso.datetime() });

/** Records `at` (default now) as the last finished sync. Atomic; the folder is not fsynced (a lost record only makes `status` show an older time). */
export async function saveLastSync(layout: Layout, at = new Date()): Promise<void> {
  await writeFileAtomic(layout.lastSync, JSON.stringify({ at: at.toISOString() }) + "\n", 0o644, false);
}

/**
 * When the last sync finished (ISO 8601), or null when none was recorded.
 * @throws StateError when the file is damaged.
 */
export async function loadLastSync(layout: Layout): Promise<string | null> {
  return (await readJson(layout.lastSync, LastSync))?.at ?? null;
}
