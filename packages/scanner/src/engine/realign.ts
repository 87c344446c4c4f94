/**
 * Re-alignment of base64 runs (issue 10, "Encoded credentials"): where a base64 text sits in a
 * longer run of base64-alphabet characters, the run's own 4-character groups are not the text's.
 *
 * A run is a maximal span of `[A-Za-z0-9+/_-]`, so characters glued before an encoded credential
 * join it (`auth=/dXNl…`, `key:abcZ2hw…`, `sha512-…`, `secrets/Z2hw…`): decoded from the run's
 * first character its groups are shifted (6 bits per character, so 1–3 glued characters shift
 * every byte) or start with groups of glued characters, and the run is refused as binary. Glued
 * after an unpadded one (`…X1c/path`, `…Zw5abc`), they add bytes after the text's last one:
 * refused when one is not text, or glued to the token's end when it is a letter or digit.
 *
 * Pure functions of the run's characters, used by the decode layer (engine/decode.ts) on a run
 * its plain decoding refused, and on each run or segment it decoded:
 * - {@link alignedSegments}: the spans of the run that decode to ASCII text at one of the 4
 *   alignments (a base64 text starts at a group of its own alignment, so every glued group before
 *   it is left out, and it ends at the first byte that is not text);
 * - {@link tailCuts}: the ends a run may have had before characters were glued after it (an end
 *   the encoder could have written: the unused bits of its last character zero, RFC 4648 §3.5),
 *   when the byte after that end would glue to a token; {@link headCuts} the same at the start,
 *   where glued groups decoded to text too; {@link cutSpans} both, for a caller with room for a
 *   given number of decoded bytes (a word longer than that is not read to its end).
 *
 * Cost: {@link alignedSegments} reads each character of the run 4 times (once per alignment), a
 * table lookup each; {@link tailCuts} and {@link headCuts} read at most 3 × ({@link TAIL_BYTES}
 * + 2) bytes.
 */

/** Value of each base64 character (both alphabets, RFC 4648 §4 and §5), −1 for the others. */
const B64 = new Int8Array(128).fill(-1);
{
  const chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (let i = 0; i < 64; i++) B64[chars.charCodeAt(i)] = i;
  B64["-".charCodeAt(0)] = 62;
  B64["_".charCodeAt(0)] = 63;
}

/** 1 for printable ASCII, tab, LF, CR: the bytes of a segment. */
const TEXT = new Uint8Array(256);
for (let b = 0x20; b < 0x7f; b++) TEXT[b] = 1;
TEXT[9] = TEXT[10] = TEXT[13] = 1;

/** Value of character `i` of `text` (a base64 character: the caller's run). */
const v = (text: string, i: number): number => B64[text.charCodeAt(i)]!;

/**
 * Fewest bytes of a segment ({@link alignedSegments}) or a tail ({@link tailCuts}): those of the
 * shortest base64 run decoded (`MIN_BASE64_RUN`, 24 characters: the shortest credential, 18 bytes).
 */
export const MIN_SEGMENT_BYTES = 18;

/**
 * Characters two segments of different alignments may share and both be kept (one group): a
 * segment decoded at a wrong alignment often runs a byte or two into the right one.
 */
const SEGMENT_OVERLAP = 4;

/**
 * The spans of the base64 characters `text[start, charsEnd)` that decode to at least
 * {@link MIN_SEGMENT_BYTES} bytes of ASCII text (printable, tab, LF, CR) when decoded from
 * `start + a` for one of the alignments a = 0…3, as `[s0, e0, s1, e1, …]` in order of start. A
 * segment starts at a group of its alignment (after a group holding a byte that is not text) and
 * ends after its last text byte (`e − s` ≡ 0, 2 or 3 mod 4: a partial last group is 1 or 2 bytes,
 * as an unpadded run). Segments of different alignments that share more than {@link
 * SEGMENT_OVERLAP} characters are not both kept (the longer is), so the kept ones decode to at most
 * about as many bytes as the run: decoding them stays within the run's share of the budget.
 *
 * A base64 text glued to other base64 characters is one segment at its own alignment (unless a
 * glued group before it decodes to text too: then it starts there). Text and random base64 rarely
 * give one at the three wrong alignments (a random byte is text with probability ~0.38). O(charsEnd − start).
 */
export function alignedSegments(text: string, start: number, charsEnd: number): number[] {
  const found: number[] = [];
  for (let a = 0; a < 4; a++) {
    let seg = -1;
    let g = start + a;
    for (; g + 4 <= charsEnd; g += 4) {
      const x = (v(text, g) << 18) | (v(text, g + 1) << 12) | (v(text, g + 2) << 6) | v(text, g + 3);
      const t0 = TEXT[x >> 16] === 1;
      const t1 = TEXT[(x >> 8) & 255] === 1;
      if (t0 && t1 && TEXT[x & 255] === 1) {
        if (seg < 0) seg = g;
        continue;
      }
      if (seg >= 0) keep(found, seg, t0 ? (t1 ? g + 3 : g + 2) : g);
      seg = -1;
    }
    if (seg < 0) continue;
    // The last, partial group: 2 characters are 1 byte, 3 are 2 (a lone character is none).
    let e = g;
    const rest = charsEnd - g;
    if (rest >= 2 && TEXT[((v(text, g) << 2) | (v(text, g + 1) >> 4)) & 255] === 1) {
      e = g + 2;
      if (rest === 3 && TEXT[((v(text, g + 1) << 4) | (v(text, g + 2) >> 2)) & 255] === 1) e = g + 3;
    }
    keep(found, seg, e);
  }
  if (found.length <= 2) return found;
  const order = Array.from({ length: found.length / 2 }, (_, k) => k).sort((x, y) => found[2 * x]! - found[2 * y]!);
  const out: number[] = [];
  for (const k of order) {
    const [s, e] = [found[2 * k]!, found[2 * k + 1]!];
    const last = out.length - 2;
    if (last >= 0 && out[last + 1]! - s > SEGMENT_OVERLAP) {
      // Overlaps the last one kept: the longer of the two stays.
      if (e - s > out[last + 1]! - out[last]!) [out[last], out[last + 1]] = [s, e];
      continue;
    }
    out.push(s, e);
  }
  return out;
}

/** Appends the span `[s, e)` to `found` when it decodes to at least {@link MIN_SEGMENT_BYTES} bytes. */
function keep(found: number[], s: number, e: number): void {
  if (Math.floor(((e - s) * 3) / 4) >= MIN_SEGMENT_BYTES) found.push(s, e);
}

/** Longest tail ({@link tailCuts}) in bytes: the catalog's longest token (~700 characters) and room. */
export const TAIL_BYTES = 1024;

/** Byte `p` of the decoding of the base64 characters from `s` (its bits are all in characters the caller has). */
function byteAt(text: string, s: number, p: number): number {
  const g = s + 4 * Math.floor(p / 3);
  const r = p % 3;
  if (r === 0) return ((v(text, g) << 2) | (v(text, g + 1) >> 4)) & 255;
  if (r === 1) return ((v(text, g + 1) << 4) | (v(text, g + 2) >> 2)) & 255;
  return ((v(text, g + 2) << 6) | v(text, g + 3)) & 255;
}

const isAlnum = (b: number): boolean => (b >= 48 && b <= 57) || (b >= 65 && b <= 90) || (b >= 97 && b <= 122);
/** Punctuation a token holds (`_-.+/=~` and the separators `:` and `$` of some formats): part of the word a tail keeps. */
const WORD_PUNCTUATION = new Uint8Array(256);
for (const c of "_-.+/=~:$") WORD_PUNCTUATION[c.charCodeAt(0)] = 1;
/** 1 for the bytes of a word a cut keeps: letters, digits, {@link WORD_PUNCTUATION}. */
const WORD_BYTE = new Uint8Array(256);
for (let b = 0; b < 256; b++) WORD_BYTE[b] = isAlnum(b) || WORD_PUNCTUATION[b] === 1 ? 1 : 0;
/** Punctuation that glues a token to a letter or digit after it (engine/boundaries.ts): a cut before one is worth a tail. */
const GLUE_PUNCTUATION = new Uint8Array(256);
for (const c of "_-.+/=~") GLUE_PUNCTUATION[c.charCodeAt(0)] = 1;

/**
 * The shorter runs to decode besides the unpadded base64 characters `text[s, e)` (decoded to
 * text), in case characters were glued after it: for each of its last 3 bytes p (from the end)
 * where the run could have ended (the characters of bytes 0…p−1, whose unused low bits are zero:
 * an encoder's end), no line end among bytes p…, and where byte p would glue to a token (a
 * letter, a digit, `_-.+/=~`), the
 * characters of the word before p (letters, digits, {@link WORD_PUNCTUATION}: at most {@link
 * TAIL_BYTES} bytes) and of the byte before it, from the group holding that byte: `[vs0, ve0, vs1,
 * ve1, …]`. Each decodes to its bytes (every decoded byte of it is one of the run's), so the token
 * they end with is scanned with the right neighbour after it. Words shorter than {@link
 * MIN_SEGMENT_BYTES} bytes are left out (no token is that short). O(TAIL_BYTES).
 */
export function tailCuts(text: string, s: number, e: number): number[] {
  const out: number[] = [];
  tailCutsInto(text, s, e, Infinity, out);
  return out;
}

/** {@link tailCuts} appended to `out`, up to the first that decodes to more than `maxBytes` bytes (then false: it and the later ones are left out). */
function tailCutsInto(text: string, s: number, e: number, maxBytes: number, out: number[]): boolean {
  const m = Math.floor(((e - s) * 3) / 4);
  const reach = Math.min(TAIL_BYTES, maxBytes);
  for (let p = m - 1; p >= Math.max(MIN_SEGMENT_BYTES, m - 3); p--) {
    // Bytes p… would be the glued characters' only. A line end among them ends the candidates:
    // it is how text usually ends, and glued characters seldom make one (one value of 256).
    const after = byteAt(text, s, p);
    if (after === 10 || after === 13) break;
    if (!isAlnum(after) && GLUE_PUNCTUATION[after] !== 1) continue;
    const g = s + 4 * Math.floor(p / 3);
    const r = p % 3;
    // An encoder writes the bits after the last byte as zeros: 4 of the second character of a
    // 1-byte group, 2 of the third of a 2-byte group.
    if ((r === 1 && (v(text, g + 1) & 15) !== 0) || (r === 2 && (v(text, g + 2) & 3) !== 0)) continue;
    let w = p;
    while (w > 0 && p - w < reach) {
      const b = byteAt(text, s, w - 1);
      if (WORD_BYTE[b] !== 1) break;
      w--;
    }
    if (p - w < MIN_SEGMENT_BYTES) continue;
    const from = Math.floor(Math.max(0, w - 1) / 3);
    const cut = g + (r === 0 ? 0 : r + 1);
    // Over the caller's room: this one and every later one are left out (the caller stops there too).
    if (Math.floor(((cut - s - 4 * from) * 3) / 4) > maxBytes) return false;
    out.push(s + 4 * from, cut);
  }
  return true;
}

/** Groups at the start of a run that {@link headCuts} skips at most: glued groups all of whose bytes are text are rare (~5 % each). */
const HEAD_GROUPS = 2;

/**
 * The shorter runs to decode besides the base64 characters `text[s, e)` (decoded to text), in
 * case whole groups of glued characters before it decoded to text too (a segment of {@link
 * alignedSegments} then starts at them, and a letter or digit among them glues to the token:
 * `film` decodes to `~)f`): for j = 1…{@link HEAD_GROUPS} where the run could start after j groups
 * (bytes 0…3j−1 would be glued characters', none a line end) and byte 3j − 1 would glue to a token,
 * the characters from group j to the end of the word that starts there (letters, digits, {@link
 * WORD_PUNCTUATION}: at most {@link TAIL_BYTES} bytes) and of the byte after it: `[vs0, ve0, …]`.
 * Words shorter than {@link MIN_SEGMENT_BYTES} bytes are left out. O(TAIL_BYTES).
 */
export function headCuts(text: string, s: number, e: number): number[] {
  const out: number[] = [];
  headCutsInto(text, s, e, Infinity, out);
  return out;
}

/**
 * The spans to decode besides the base64 characters `text[s, e)` (decoded to text): its
 * {@link headCuts}, then (with `tail`: the run is unpadded) its {@link tailCuts}, up to the first
 * that decodes to more than `maxBytes` bytes: that one and the later ones are left out, and their
 * words are not read further than `maxBytes` (a caller with room for a few bytes reads few).
 */
export function cutSpans(text: string, s: number, e: number, tail: boolean, maxBytes: number): number[] {
  const out: number[] = [];
  if (headCutsInto(text, s, e, maxBytes, out) && tail) tailCutsInto(text, s, e, maxBytes, out);
  return out;
}

/** {@link headCuts} appended to `out`, up to the first that decodes to more than `maxBytes` bytes (then false: it and the later ones are left out). */
function headCutsInto(text: string, s: number, e: number, maxBytes: number, out: number[]): boolean {
  const m = Math.floor(((e - s) * 3) / 4);
  const reach = Math.min(TAIL_BYTES, maxBytes);
  for (let j = 1; j <= HEAD_GROUPS && 3 * j + MIN_SEGMENT_BYTES <= m; j++) {
    const before = byteAt(text, s, 3 * j - 1);
    if (byteAt(text, s, 3 * j - 3) === 10 || byteAt(text, s, 3 * j - 2) === 10 || before === 10 || before === 13) break;
    if (!isAlnum(before) && GLUE_PUNCTUATION[before] !== 1) continue;
    // The word from byte 3j, a group (3 bytes, 4 characters) at a time while all three are word bytes.
    let w = 3 * j;
    let g = s + 4 * j;
    while (w + 3 <= m && w + 3 - 3 * j <= reach) {
      const x = (v(text, g) << 18) | (v(text, g + 1) << 12) | (v(text, g + 2) << 6) | v(text, g + 3);
      if (WORD_BYTE[x >> 16] !== 1 || WORD_BYTE[(x >> 8) & 255] !== 1 || WORD_BYTE[x & 255] !== 1) break;
      w += 3;
      g += 4;
    }
    while (w < m && w - 3 * j < reach && WORD_BYTE[byteAt(text, s, w)] === 1) w++;
    if (w - 3 * j < MIN_SEGMENT_BYTES) continue;
    // The word and the byte after it, to the end of its group (the run's end at most).
    const cut = Math.min(e, s + 4 * Math.ceil(Math.min(m, w + 1) / 3));
    // Over the caller's room: this one and every later one are left out (the caller stops there too).
    if (Math.floor(((cut - s - 4 * j) * 3) / 4) > maxBytes) return false;
    out.push(s + 4 * j, cut);
  }
  return true;
}
