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

/** A text prepared for comparisons: its lines (line endings ignored) counted, and its size in bytes. */
interface Bag {
  readonly lines: Map<string, number>;
  readonly bytes: number;
}

function bagOf(text: string): Bag {
  const lf = text.replace(/\r\n/g, "\n");
  const lines = new Map<string, number>();
  for (const line of splitLines(lf)) lines.set(line, (lines.get(line) ?? 0) + 1);
  return { lines, bytes: Buffer.byteLength(lf, "utf8") };
}

/** Bytes of the lines of `b` found in `a`'s bag (each line of `a` matched at most once), over the larger size. */
function score(a: Bag, b: Bag): number {
  if (a.bytes === 0 || b.bytes === 0) return 0;
  // At most the smaller text can be shared: skip the count when that cannot reach the threshold.
  if (Math.min(a.bytes, b.bytes) < RENAME_SIMILARITY * Math.max(a.bytes, b.bytes)) return 0;
  let shared = 0;
  for (const [line, n] of b.lines) shared += Math.min(n, a.lines.get(line) ?? 0) * Buffer.byteLength(line, "utf8");
  return shared / Math.max(a.bytes, b.bytes);
}

/** Similarity of `a` and `b` in [0, 1]: bytes of shared lines (line endings ignored) / bytes of the larger text. */
export function similarity(a: string, b: string): number {
  if (a === "" || b === "") return 0;
  return a === b ? 1 : score(bagOf(a), bagOf(b));
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
  const bags = new Map<RenameCandidate, Bag>();
  const bag = (x: RenameCandidate) => bags.get(x) ?? bags.set(x, bagOf(x.text!)).get(x)!;
  for (const d of deleted) {
    for (const c of created) {
      const value =
        d.sha256 === c.sha256 ? (c.sha256 === EMPTY_SHA256 ? 0 : 2) : byContent && d.text !== undefined && c.text !== undefined ? score(bag(d), bag(c)) : 0;
      if (value >= RENAME_SIMILARITY) scored.push({ from: d.path, to: c.path, score: value, sameName: name(d.path) === name(c.path) });
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
