/**
 * Anchors of a three-way merge: lines that occur exactly once in each of the three texts, kept in
 * the same order by all three (patience diff's idea, as in git's patience and histogram diffs).
 * A merge splits at them into independent parts, so its cost grows with the size of the changed
 * parts, not of the file: diff3's longest common subsequence costs O(lines²).
 */

/** The longest subsequence of `items` strictly increasing by `key` (patience sorting, O(n log n)). */
function longestIncreasing<T>(items: readonly T[], key: (item: T) => number): T[] {
  const tails: number[] = []; // index into items of the last element of the best run of each length
  const previous: number[] = new Array<number>(items.length).fill(-1);
  for (let i = 0; i < items.length; i++) {
    const k = key(items[i]!);
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (key(items[tails[mid]!]!) < k) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0) previous[i] = tails[lo - 1]!;
    tails[lo] = i;
  }
  const out: T[] = [];
  for (let i = tails.length > 0 ? tails[tails.length - 1]! : -1; i >= 0; i = previous[i]!) out.push(items[i]!);
  return out.reverse();
}

/** Positions of the lines that occur exactly once in `lines`. */
function uniquePositions(lines: readonly string[]): Map<string, number> {
  const seen = new Map<string, number>();
  for (let i = 0; i < lines.length; i++) seen.set(lines[i]!, seen.has(lines[i]!) ? -1 : i);
  for (const [line, at] of seen) if (at < 0) seen.delete(line);
  return seen;
}

/**
 * Anchor lines of `o` (base), `a` and `b`: `[index in o, index in a, index in b]`, increasing in
 * all three.
 */
export function anchorLines(o: readonly string[], a: readonly string[], b: readonly string[]): [number, number, number][] {
  const [uo, ua, ub] = [uniquePositions(o), uniquePositions(a), uniquePositions(b)];
  const common: [number, number, number][] = [];
  for (const [line, io] of uo) {
    const ia = ua.get(line);
    const ib = ub.get(line);
    if (ia !== undefined && ib !== undefined) common.push([io, ia, ib]);
  }
  common.sort((x, y) => x[0] - y[0]);
  return longestIncreasing(longestIncreasing(common, (t) => t[1]), (t) => t[2]);
}
