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
 * Once the pull has given a path that base with its file holding the journaled content (written,
 * deleted, or found so), it appends a mark: a marked path gets that base whatever its file holds
 * now, since it differs only by what was done to it after the pull (try21 F8: an edit of a file the
 * stopped pull created is then an edit of the teammate's version, not a second create that the
 * create-on-both-sides merge would add to it). An unmarked path whose file differs keeps its base:
 * the pull may not have reached it, and its file is what this folder had (a local edit or create).
 *
 * A line is `{"b":[[path, version, sha256 | null], ...]}` (the bases, fsynced before the files are
 * written) or `{"w":[[path, version]]}` (the mark, appended after the file is on disk; not fsynced:
 * a mark lost with the machine only leaves the path to the content rule); a line cut off (a crash, a
 * full disk during the append) is ignored: the files of that batch were not written, since the
 * append failed, and a mark cut off is a mark missing.
 */
import { appendFile, open, readFile } from "node:fs/promises";
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

/** A journaled base as read back: with whether the pull marked it given (see the module comment). */
export interface ReadJournaledBase extends JournaledBase {
  readonly given: boolean;
}

const Line = z.union([
  z.object({ b: z.array(z.tuple([z.string().min(1), Version, Sha256.nullable()])) }),
  z.object({ w: z.array(z.tuple([z.string().min(1), Version])) }),
]);

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

/**
 * Marks the journaled base (`path`, `version`) as given: the pull moved the path's base to it with
 * its file holding that content (written and fsynced, deleted, or already equal). Call after the
 * file is on disk, never before.
 */
export async function markPulledGiven(layout: Layout, path: string, version: number): Promise<void> {
  await appendFile(layout.pullJournal, `\n${JSON.stringify({ w: [[path, version]] })}\n`, { encoding: "utf8", mode: 0o644 });
}

/** Removes the journal; call after state.json was saved from a state `loadSyncState` loaded (it applied the journal). */
export function clearPullJournal(layout: Layout): Promise<void> {
  return unlinkDurable(layout.pullJournal);
}

/**
 * The journaled bases, oldest first ([] without a journal), each with whether it was marked given;
 * lines that do not parse are skipped, and so is a mark of no journaled base.
 */
export async function readPullJournal(layout: Layout): Promise<ReadJournaledBase[]> {
  let text: string;
  try {
    text = await readFile(layout.pullJournal, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw err;
  }
  const out: JournaledBase[] = [];
  const given = new Set<string>();
  for (const raw of text.split("\n")) {
    if (raw.trim() === "") continue;
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      continue;
    }
    const line = Line.safeParse(json);
    if (!line.success) continue;
    if ("b" in line.data) for (const [path, version, sha256] of line.data.b) out.push({ path, version, sha256 });
    else for (const [path, version] of line.data.w) given.add(JSON.stringify([path, version]));
  }
  return out.map((b) => ({ ...b, given: given.has(JSON.stringify([b.path, b.version])) }));
}
