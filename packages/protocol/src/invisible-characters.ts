/**
 * Invisible characters: Unicode `Default_Ignorable_Code_Point` ∪ `Bidi_Control`. A name holding
 * one can display as another name (a bidi control reorders what follows it, Trojan-Source style:
 * U+202E makes `evil.md` display as `dm.live`; a zero-width character makes two names look the
 * same), so entry paths refuse them (paths.ts).
 *
 * The tables themselves are the scanner's (`@teammem/scanner/invisible-characters`, a module that
 * imports nothing): the scanner removes the same characters before matching, and one table keeps
 * the two from drifting apart. Re-exported here for the protocol's users.
 */
import { BIDI_CONTROL_RANGES, INVISIBLE_RANGES } from "@teammem/scanner/invisible-characters";

export { BIDI_CONTROL_RANGES, INVISIBLE_RANGES };

/** Unicode names of the single invisible code points a name may plausibly hold (ranges are named in {@link codePointName}). */
const NAMES: ReadonlyMap<number, string> = new Map([
  [0xad, "SOFT HYPHEN"],
  [0x34f, "COMBINING GRAPHEME JOINER"],
  [0x61c, "ARABIC LETTER MARK"],
  [0x115f, "HANGUL CHOSEONG FILLER"],
  [0x1160, "HANGUL JUNGSEONG FILLER"],
  [0x17b4, "KHMER VOWEL INHERENT AQ"],
  [0x17b5, "KHMER VOWEL INHERENT AA"],
  [0x180e, "MONGOLIAN VOWEL SEPARATOR"],
  [0x200b, "ZERO WIDTH SPACE"],
  [0x200c, "ZERO WIDTH NON-JOINER"],
  [0x200d, "ZERO WIDTH JOINER"],
  [0x200e, "LEFT-TO-RIGHT MARK"],
  [0x200f, "RIGHT-TO-LEFT MARK"],
  [0x202a, "LEFT-TO-RIGHT EMBEDDING"],
  [0x202b, "RIGHT-TO-LEFT EMBEDDING"],
  [0x202c, "POP DIRECTIONAL FORMATTING"],
  [0x202d, "LEFT-TO-RIGHT OVERRIDE"],
  [0x202e, "RIGHT-TO-LEFT OVERRIDE"],
  [0x2060, "WORD JOINER"],
  [0x2061, "FUNCTION APPLICATION"],
  [0x2062, "INVISIBLE TIMES"],
  [0x2063, "INVISIBLE SEPARATOR"],
  [0x2064, "INVISIBLE PLUS"],
  [0x2066, "LEFT-TO-RIGHT ISOLATE"],
  [0x2067, "RIGHT-TO-LEFT ISOLATE"],
  [0x2068, "FIRST STRONG ISOLATE"],
  [0x2069, "POP DIRECTIONAL ISOLATE"],
  [0x206a, "INHIBIT SYMMETRIC SWAPPING"],
  [0x206b, "ACTIVATE SYMMETRIC SWAPPING"],
  [0x206c, "INHIBIT ARABIC FORM SHAPING"],
  [0x206d, "ACTIVATE ARABIC FORM SHAPING"],
  [0x206e, "NATIONAL DIGIT SHAPES"],
  [0x206f, "NOMINAL DIGIT SHAPES"],
  [0x3164, "HANGUL FILLER"],
  [0xfeff, "ZERO WIDTH NO-BREAK SPACE"],
  [0xffa0, "HALFWIDTH HANGUL FILLER"],
  [0xe0001, "LANGUAGE TAG"],
  [0xe007f, "CANCEL TAG"],
]);

const inRanges = (ranges: readonly (readonly [number, number])[], cp: number): boolean => ranges.some(([from, to]) => cp >= from && cp <= to);

/** Is code point `cp` invisible ({@link INVISIBLE_RANGES})? */
export function isInvisibleCodePoint(cp: number): boolean {
  return inRanges(INVISIBLE_RANGES, cp);
}

/** Is code point `cp` a bidi control ({@link BIDI_CONTROL_RANGES})? */
export function isBidiControl(cp: number): boolean {
  return inRanges(BIDI_CONTROL_RANGES, cp);
}

/** `U+XXXX` (at least four upper-case hex digits) and, when known, the Unicode name: `U+202E RIGHT-TO-LEFT OVERRIDE`. */
export function codePointName(cp: number): string {
  const hex = `U+${cp.toString(16).toUpperCase().padStart(4, "0")}`;
  let name = NAMES.get(cp);
  if (name === undefined && cp >= 0xfe00 && cp <= 0xfe0f) name = `VARIATION SELECTOR-${cp - 0xfe00 + 1}`;
  else if (name === undefined && cp >= 0xe0100 && cp <= 0xe01ef) name = `VARIATION SELECTOR-${cp - 0xe0100 + 17}`;
  else if (name === undefined && cp >= 0xe0020 && cp <= 0xe007e) name = `TAG ${String.fromCodePoint(cp - 0xe0000) === " " ? "SPACE" : `'${String.fromCodePoint(cp - 0xe0000)}'`}`;
  return name === undefined ? hex : `${hex} ${name}`;
}

/** The first invisible character of `s`: its code point, whether it is a bidi control, and its {@link codePointName}; null when there is none. */
export function findInvisible(s: string): { codePoint: number; bidi: boolean; name: string } | null {
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (isInvisibleCodePoint(cp)) return { codePoint: cp, bidi: isBidiControl(cp), name: codePointName(cp) };
  }
  return null;
}
