/**
 * Input normalisation before matching, with an offset map back to the original text.
 *
 * Removed code units: the CR of every CRLF pair, and the zero-width characters U+200B (zero width
 * space), U+200C (ZWNJ), U+200D (ZWJ), U+2060 (word joiner) and U+FEFF (BOM / ZWNBSP, also at the
 * start of a file) wherever they occur, so that they cannot split a token and hide it.
 * Nothing else changes, so every other code unit keeps its value; only offsets shift.
 */

const REMOVABLE = /\r\n|[\u200B-\u200D\u2060\uFEFF]/;
const REMOVABLE_SOURCE = "\\r(?=\\n)|[\\u200B-\\u200D\\u2060\\uFEFF]";

export interface NormalizedText {
  /** The text matched against (the original when nothing needed removing). */
  readonly text: string;
  /**
   * Offset in the original text of the code unit at normalised offset `i` (0 ≤ i ≤ text.length;
   * `i = text.length` maps to the original's length). O(log removals).
   */
  toOriginal(i: number): number;
}

/** Normalises `original` (see module doc). O(n); the common case (nothing to remove) allocates nothing. */
export function normalize(original: string): NormalizedText {
  if (!REMOVABLE.test(original)) return { text: original, toOriginal: (i) => i };
  // Runs of kept text: normStarts[k] is where run k begins in the normalised text, shifts[k] how many
  // code units were removed before it.
  const normStarts: number[] = [0];
  const shifts: number[] = [0];
  const parts: string[] = [];
  let last = 0;
  let removed = 0;
  const removable = new RegExp(REMOVABLE_SOURCE, "g");
  for (let m = removable.exec(original); m !== null; m = removable.exec(original)) {
    if (m.index > last) parts.push(original.slice(last, m.index));
    removed += 1;
    last = m.index + 1;
    normStarts.push(last - removed);
    shifts.push(removed);
  }
  parts.push(original.slice(last));
  const text = parts.join("");
  const toOriginal = (i: number): number => {
    // Last run whose start ≤ i (runs may be empty; the last with that start has the full shift).
    let lo = 0;
    let hi = normStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (normStarts[mid]! <= i) lo = mid;
      else hi = mid - 1;
    }
    return i + shifts[lo]!;
  };
  return { text, toOriginal };
}
