/**
 * How alike two texts are, to tell a rename (a file deleted and another created with the same or
 * nearly the same content in one sync) from a delete plus an unrelated create. Like git's rename
 * detection: the share of the larger text's bytes found in lines both texts have (each line
 * matched at most once), and a pair counts as a rename from {@link RENAME_SIMILARITY} (git's
 * default `-M50%`). Empty texts are never paired (as in git): they carry nothing to follow.
 */
import { sha256Hex, splitLines } from "@teammem/protocol";

/** Lowest similarity (0-1) of a delete and a create to be sent as a rename. */
export const RENAME_SIMILARITY = 0.5;

/** Similarity of `a` and `b` in [0, 1]: bytes of shared lines (line endings ignored) / bytes of the larger text. */
export function similarity(a: string, b: string): number {
  if (a === "" || b === "") return 0;
  if (a === b) return 1;
  const count = new Map<string, number>();
  for (const line of splitLines(a.replace(/\r\n/g, "\n"))) count.set(line, (count.get(line) ?? 0) + 1);
  let shared = 0;
  for (const line of splitLines(b.replace(/\r\n/g, "\n"))) {
    const left = count.get(line) ?? 0;
    if (left === 0) continue;
    count.set(line, left - 1);
    shared += Buffer.byteLength(line, "utf8");
  }
  return shared / Math.max(Buffer.byteLength(a.replace(/\r\n/g, "\n"), "utf8"), Buffer.byteLength(b.replace(/\r\n/g, "\n"), "utf8"));
}

export interface RenameCandidate {
  readonly path: string;
  /** The text (of the deleted file's base, or of the new file); undefined when not known (only an exact sha256 match pairs it). */
  readonly text: string | undefined;
  readonly sha256: string;
}

const EMPTY_SHA256 = sha256Hex("");

/** At most this many delete × create comparisons by content; beyond it only exact matches pair. */
const MAX_COMPARISONS = 10_000;

/**
 * Pairs deleted files with created ones as renames: identical content first, then the most
 * similar pairs at or above {@link RENAME_SIMILARITY} (ties: same file name first, then path
 * order). Each file is in at most one pair.
 * @returns `[deleted path, created path]` pairs.
 */
export function pairRenames(deleted: readonly RenameCandidate[], created: readonly RenameCandidate[]): [string, string][] {
  const scored: { from: string; to: string; score: number; sameName: boolean }[] = [];
  const byContent = deleted.length * created.length <= MAX_COMPARISONS;
  const name = (path: string) => path.slice(path.lastIndexOf("/") + 1);
  for (const d of deleted) {
    for (const c of created) {
      const score =
        d.sha256 === c.sha256 ? (c.sha256 === EMPTY_SHA256 ? 0 : 2) : byContent && d.text !== undefined && c.text !== undefined ? similarity(d.text, c.text) : 0;
      if (score >= RENAME_SIMILARITY) scored.push({ from: d.path, to: c.path, score, sameName: name(d.path) === name(c.path) });
    }
  }
  scored.sort((x, y) => y.score - x.score || Number(y.sameName) - Number(x.sameName) || (x.from + "\0" + x.to < y.from + "\0" + y.to ? -1 : 1));
  const used = new Set<string>();
  const pairs: [string, string][] = [];
  for (const s of scored) {
    if (used.has("d:" + s.from) || used.has("c:" + s.to)) continue;
    used.add("d:" + s.from);
    used.add("c:" + s.to);
    pairs.push([s.from, s.to]);
  }
  return pairs;
}
