/**
 * Invisible characters: Unicode `Default_Ignorable_Code_Point` ∪ `Bidi_Control`. Text holding one
 * can display as other text (a bidi control reorders what follows it, Trojan-Source style: U+202E
 * makes `evil.md` display as `dm.live`; a zero-width character makes two strings look the same).
 *
 * The one table of them: the scanner removes them before matching (engine/normalize.ts), and
 * `@teammem/protocol` refuses them in new entry paths, importing this module through the subpath
 * `@teammem/scanner/invisible-characters`, which loads nothing else of the scanner. It imports
 * nothing, so the scanner stays free of workspace dependencies.
 * invisible-characters.test.ts compares both tables with the regex properties of the running engine.
 */

/** Inclusive code point ranges, ascending: exactly `Default_Ignorable_Code_Point` ∪ `Bidi_Control` (Unicode 17). */
export const INVISIBLE_RANGES: readonly (readonly [number, number])[] = [
  [0xad, 0xad],
  [0x34f, 0x34f],
  [0x61c, 0x61c],
  [0x115f, 0x1160],
  [0x17b4, 0x17b5],
  [0x180b, 0x180f],
  [0x200b, 0x200f],
  [0x202a, 0x202e],
  [0x2060, 0x206f],
  [0x3164, 0x3164],
  [0xfe00, 0xfe0f],
  [0xfeff, 0xfeff],
  [0xffa0, 0xffa0],
  [0xfff0, 0xfff8],
  [0x1bca0, 0x1bca3],
  [0x1d173, 0x1d17a],
  [0xe0000, 0xe0fff],
];

/** Inclusive code point ranges, ascending: exactly `Bidi_Control` (Unicode 17), a subset of {@link INVISIBLE_RANGES}. */
export const BIDI_CONTROL_RANGES: readonly (readonly [number, number])[] = [
  [0x61c, 0x61c],
  [0x200e, 0x200f],
  [0x202a, 0x202e],
  [0x2066, 0x2069],
];
