/**
 * `.teammem/pulled.jsonl`, the pull journal: the bases a pull is about to give the files it
 * writes, appended (and fsynced) before the files are written, removed once state.json holds them.
 * state.json is saved after pages of files, not per file, and saving it can fail (a full disk, a
 * crash): without the journal, the files a stopped pull wrote would have no base, and `status`, the
 * dry run and `push` would take them for local creates until the next sync pulled them again
 * (try19 F5). With it, loading the state (`loadSyncState`) gives every journaled path whose
 * file holds the journaled content (or is absent, for a tombstone) that base, exactly as the pull
 * does for a file already equal to the server's version, so every command classifies it alike.
 *
 * A line is `{"b":[[path, version, sha256 | null], ...]}`; a line cut off (a crash, a full disk
 * during the append) is ignored: the files of that batch were not written, since the append failed.
 */
import { open, readFile } from "node:fs/promises";
import { z } from "zod";
import { Sha256, Version } from "@teammem/protocol";
import { unlinkDurable } from "./atomic.js";
import type { Layout } from "./layout.js";

/** One base a pull is about to write: the entry path, the server version, its sha256 (null: a tombstone). */
export interface JournaledBase {
  readonly path: string;
  readonly version: number;
  readonly sha256: string | null;
}

const Line = z.object({ b: z.array(z.tuple([z.string().min(1), Version, Sha256.nullable()])) });

/**
 * Appends `bases` to the journal and fsyncs it; call before writing the files they describe.
 * @throws the file system's error (ENOSPC...): then write none of those files.
 */
export async function journalPulled(layout: Layout, bases: readonly JournaledBase[]): Promise<void> {
  if (bases.length === 0) return;
  // Led by a newline too: a line cut off earlier never swallows this one.
  const line = `\n${JSON.stringify({ b: bases.map((b) => [b.path, b.version, b.sha256]) })}\n`;
  const handle = await open(layout.pullJournal, "a", 0o644);
  try {
    await handle.writeFile(line, "utf8");
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Removes the journal; call after state.json was saved from a state `loadSyncState` loaded (it applied the journal). */
export function clearPullJournal(layout: Layout): Promise<void> {
  return unlinkDurable(layout.pullJournal);
}

/** The journaled bases, oldest first ([] without a journal); lines that do not parse are skipped. */
export async function readPullJournal(layout: Layout): Promise<JournaledBase[]> {
  let text: string;
  try {
    text = await readFile(layout.pullJournal, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw err;
  }
  const out: JournaledBase[] = [];
  for (const raw of text.split("\n")) {
    if (raw.trim() === "") continue;
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      continue;
    }
    const line = Line.safeParse(json);
    if (line.success) for (const [path, version, sha256] of line.data.b) out.push({ path, version, sha256 });
  }
  return out;
}
