/**
 * Input normalisation before matching, with an offset map back to the original text.
 *
 * Removed code units: the CR of every CRLF pair, and the zero-width characters U+200B (zero width
 * space), U+200C (ZWNJ), U+200D (ZWJ), U+2060 (word joiner) and U+FEFF (BOM / ZWNBSP, also at the
 * start of a file) wherever they occur, so that they cannot split a token and hide it.
 * A lone CR (a classic Mac OS line end) becomes LF, so patterns that span lines (PEM blocks) read
 * CR-only files alike; it keeps its offset.
 * Nothing else changes, so every other code unit keeps its value; only offsets shift.
 */

const REMOVABLE = /\r|[\u200B-\u200D\u2060\uFEFF]/;

/**
 * The code units that start a change, as literal strings: the scan engine adds them to its prefix
 * automaton, so the one pass over the text also tells whether normalisation is needed (no separate
 * check of the text). A CR starts both a CRLF and a lone CR.
 */
export const REMOVABLE_SEQUENCES: readonly string[] = ["\r", "\u200B", "\u200C", "\u200D", "\u2060", "\uFEFF"];
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
  // non-decreasing, so toOriginal(i) = i + (number of gaps ≤ i).
  const { text, gaps, count } = ZERO_WIDTH.test(original) ? removeByCopy(original) : removeCrs(original);
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

interface Removal {
  readonly text: string;
  /** See {@link normalize}; only the first `count` entries are used. */
  readonly gaps: Int32Array;
  readonly count: number;
}

/**
 * CRs only (the usual case: a Windows file): the text is copied once into a UTF-16 buffer
 * (native), compacted in place (the CR of a CRLF dropped and its gap recorded, a lone CR written
 * as LF) and decoded at once (native): its cost does not depend on how many CRs there are. A
 * native global replace (`/\r\n?/g`, with an `indexOf` loop for the CRLFs) costs as much on CRLF
 * Markdown (5 MB: 32 vs 33 ms CPU) but ~0.3 µs per CR (a match and a part of the result each,
 * then garbage collection): 5 MB of lone CRs took 1 500 ms (now 11), a scan 20-25x Markdown's per
 * byte (issue 10).
 */
function removeCrs(original: string): Removal {
  const n = original.length;
  const units = new Uint16Array(n);
  const bytes = Buffer.from(units.buffer);
  bytes.write(original, "utf16le");
  let gaps = new Int32Array(64);
  let count = 0;
  let j = 0;
  for (let i = 0; i < n; i++) {
    const c = units[i]!;
    if (c !== 13) units[j++] = c;
    else if (i + 1 < n && units[i + 1] === 10) {
      if (count === gaps.length) {
        const grown = new Int32Array(count * 2);
        grown.set(gaps);
        gaps = grown;
      }
      gaps[count++] = j;
    } else units[j++] = 10;
  }
  return { text: bytes.toString("utf16le", 0, j * 2), gaps, count };
}

/**
 * Zero-width characters (and maybe CRs): one pass over the code units records the gaps and copies
 * the kept code units (a lone CR as LF) into a buffer, decoded at once as UTF-16LE (an exact copy: lone surrogates are
 * kept). A native global replace was measured ~5x slower when removals are dense.
 */
function removeByCopy(original: string): Removal {
  const n = original.length;
  const buf = new Uint16Array(n);
  let gaps = new Int32Array(64);
  let count = 0;
  let j = 0;
  for (let i = 0; i < n; i++) {
    const c = original.charCodeAt(i);
    if (c === 13 ? original.charCodeAt(i + 1) === 10 : c >= 0x200b && (c <= 0x200d || c === 0x2060 || c === 0xfeff)) {
      if (count === gaps.length) {
        const grown = new Int32Array(count * 2);
        grown.set(gaps);
        gaps = grown;
      }
      gaps[count++] = j;
    } else buf[j++] = c === 13 ? 10 : c;
  }
  return { text: Buffer.from(buf.buffer, 0, j * 2).toString("utf16le"), gaps, count };
}
