/**
 * Input normalisation before matching, with an offset map back to the original text.
 *
 * Removed code units: the CR of every CRLF pair, and the zero-width characters U+200B (zero width
 * space), U+200C (ZWNJ), U+200D (ZWJ), U+2060 (word joiner) and U+FEFF (BOM / ZWNBSP, also at the
 * start of a file) wherever they occur, so that they cannot split a token and hide it.
 * Nothing else changes, so every other code unit keeps its value; only offsets shift.
 */

const REMOVABLE = /\r\n|[\u200B-\u200D\u2060\uFEFF]/;
const ZERO_WIDTH = /[\u200B-\u200D\u2060\uFEFF]/;

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
  // gaps[k] = normalised offset at which the k-th removed code unit was (= its original offset − k);
  // non-decreasing, so toOriginal(i) = i + (number of gaps ≤ i). Found with native searches:
  // indexOf for CRLF, a regex for the (rare) zero-width characters, then merged in order.
  const crs: number[] = [];
  for (let p = original.indexOf("\r\n"); p !== -1; p = original.indexOf("\r\n", p + 2)) crs.push(p);
  const zws: number[] = [];
  if (ZERO_WIDTH.test(original)) {
    const re = new RegExp(ZERO_WIDTH.source, "g");
    for (let m = re.exec(original); m !== null; m = re.exec(original)) zws.push(m.index);
  }
  const count = crs.length + zws.length;
  const gaps = new Int32Array(count);
  for (let a = 0, b = 0, k = 0; k < count; k++) {
    const at = b >= zws.length || (a < crs.length && crs[a]! < zws[b]!) ? crs[a++]! : zws[b++]!;
    gaps[k] = at - k;
  }
  const text = count * 64 < original.length ? removeBySlices(original, gaps, count) : removeByCopy(original, count);
  const toOriginal = (i: number): number => {
    let lo = 0;
    let hi = count;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (gaps[mid]! <= i) lo = mid + 1;
      else hi = mid;
    }
    return i + lo;
  };
  return { text, toOriginal };
}

/** Few removals: join the kept slices (native copies). `gaps` as in {@link normalize}. */
function removeBySlices(original: string, gaps: Int32Array, count: number): string {
  const parts: string[] = [];
  let last = 0;
  for (let k = 0; k < count; k++) {
    const at = gaps[k]! + k; // original offset of the k-th removed code unit
    parts.push(original.slice(last, at));
    last = at + 1;
  }
  parts.push(original.slice(last));
  return parts.join("");
}

/** Many removals: copy kept code units into a buffer, then build the string in 8 Ki chunks (exact, lone surrogates kept). */
function removeByCopy(original: string, count: number): string {
  const n = original.length;
  const buf = new Uint16Array(n - count);
  let j = 0;
  for (let i = 0; i < n; i++) {
    const c = original.charCodeAt(i);
    if (!(c === 13 ? original.charCodeAt(i + 1) === 10 : c >= 0x200b && (c <= 0x200d || c === 0x2060 || c === 0xfeff))) buf[j++] = c;
  }
  const chunks: string[] = [];
  for (let i = 0; i < buf.length; i += 8192) chunks.push(String.fromCharCode.apply(null, buf.subarray(i, i + 8192) as unknown as number[]));
  return chunks.join("");
}
