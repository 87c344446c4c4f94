import { describe, expect, it } from "vitest";
import { BIDI_CONTROL_RANGES, INVISIBLE_RANGES } from "./invisible-characters.js";

describe("the invisible-character tables", () => {
  const inRanges = (ranges: readonly (readonly [number, number])[], cp: number): boolean => ranges.some(([a, b]) => cp >= a && cp <= b);

  it("equal the Unicode properties of the running engine (every code point checked)", () => {
    const invisible = /^[\p{Default_Ignorable_Code_Point}\p{Bidi_Control}]$/u;
    const bidi = /^\p{Bidi_Control}$/u;
    const differ: string[] = [];
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const ch = String.fromCodePoint(cp);
      if (inRanges(INVISIBLE_RANGES, cp) !== invisible.test(ch)) differ.push(`INVISIBLE_RANGES at U+${cp.toString(16)}`);
      if (inRanges(BIDI_CONTROL_RANGES, cp) !== bidi.test(ch)) differ.push(`BIDI_CONTROL_RANGES at U+${cp.toString(16)}`);
    }
    expect(differ).toEqual([]);
  });

  it("are ascending and disjoint", () => {
    for (const ranges of [INVISIBLE_RANGES, BIDI_CONTROL_RANGES])
      for (const [i, [from, to]] of ranges.entries()) {
        expect(from).toBeLessThanOrEqual(to);
        if (i > 0) expect(from).toBeGreaterThan(ranges[i - 1]![1] + 1);
      }
  });
});
