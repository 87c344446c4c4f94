import { describe, expect, it } from "vitest";
import { ansiLength, ASCII_PUNCTUATION, INVISIBLE_RANGES, MAX_ANSI_LENGTH, normalizationTriggers, normalize } from "./normalize.js";
import { PrefixAutomaton } from "./prefix-automaton.js";

describe("normalize", () => {
  it("returns the same string when nothing is removable", () => {
    const n = normalize("plain\ntext only LF");
    expect(n.text).toBe("plain\ntext only LF");
    expect(n.toOriginal(5)).toBe(5);
  });
  it("removes CR of CRLF, BOM and zero-width characters and maps offsets back", () => {
    const original = "\uFEFFab\r\ncd\u200Be\u200C\u200Df\u2060";
    const n = normalize(original);
    expect(n.text).toBe("ab\ncdef");
    for (let i = 0; i < n.text.length; i++) expect(original[n.toOriginal(i)]).toBe(n.text[i]);
    expect(n.toOriginal(n.text.length)).toBe(original.length);
  });
});

describe("normalize of lone CRs (classic Mac OS line ends)", () => {
  it("turns a lone CR into LF at the same offset, also next to CRLFs and zero-width characters", () => {
    expect(normalize("a\rb\r\nc\r").text).toBe("a\nb\nc\n");
    const n = normalize("a\r\u200Bb\rc");
    expect(n.text).toBe("a\nb\nc");
    expect([0, 1, 2, 3, 4].map((i) => n.toOriginal(i))).toEqual([0, 1, 3, 4, 5]);
  });
});

describe("normalize with many removals", () => {
  it("gives the same text and offsets as with few", () => {
    const unit = "ab\u200B\r\ncd\uD800e\uFEFF";
    const original = unit.repeat(5000);
    const n = normalize(original);
    expect(n.text).toBe("ab\ncd\uD800e".repeat(5000));
    for (let i = 0; i < n.text.length; i += 7) expect(original[n.toOriginal(i)]).toBe(n.text[i]);
  });
});

describe("normalize of CRs alone (no zero-width character)", () => {
  it("gives the text and offsets of a reference replace, for any mix of CR, CRLF, LF and other code units", () => {
    // Reference: every CRLF's CR removed, every other CR read as LF; an offset map built one unit at a time.
    const reference = (s: string): { text: string; offsets: number[] } => {
      let text = "";
      const offsets: number[] = [];
      for (let i = 0; i < s.length; i++) {
        if (s[i] === "\r" && s[i + 1] === "\n") continue;
        text += s[i] === "\r" ? "\n" : s[i];
        offsets.push(i);
      }
      return { text, offsets };
    };
    const units = ["\r", "\r", "\n", "a", "é", "\uD83D", "\uDE00", "\uDC00", " "];
    let x = 7;
    for (let k = 0; k < 200; k++) {
      let s = "";
      for (let i = 0; i < k; i++) s += units[(x = (x * 1103515245 + 12345) >>> 0) % units.length];
      s += "\r";
      const n = normalize(s);
      const r = reference(s);
      expect(n.text).toBe(r.text);
      expect(Array.from({ length: r.text.length }, (_c, i) => n.toOriginal(i))).toEqual(r.offsets);
      expect(n.toOriginal(n.text.length)).toBe(s.length);
    }
  });

  it("reads 1 MB of lone CRs, of CRLFs and of CR CR LF", () => {
    expect(normalize("\r".repeat(1 << 20)).text).toBe("\n".repeat(1 << 20));
    const crlf = normalize("\r\n".repeat(1 << 19));
    expect(crlf.text).toBe("\n".repeat(1 << 19));
    expect(crlf.toOriginal(1000)).toBe(2001);
    expect(normalize("\r\r\n".repeat(1 << 18)).text).toBe("\n\n".repeat(1 << 18));
  });
});

describe("normalize of invisible characters (Default_Ignorable_Code_Point and bidi controls)", () => {
  // That INVISIBLE_RANGES is exactly the Unicode properties: ../invisible-characters.test.ts.
  it.each(INVISIBLE_RANGES.map(([from, to]) => [from.toString(16), to.toString(16), from, to] as const))("removes U+%s–U+%s inside a word, and maps offsets back", (_a, _b, from, to) => {
    for (const cp of new Set([from, (from + to) >> 1, to])) {
      const ch = String.fromCodePoint(cp);
      const original = `ab${ch}cd${ch}${ch}e`;
      const n = normalize(original);
      expect(n.text).toBe("abcde");
      expect(n.joins).toBe(true);
      for (let i = 0; i < n.text.length; i++) expect(original[n.toOriginal(i)]).toBe(n.text[i]);
      expect(n.toOriginal(n.text.length)).toBe(original.length);
    }
  });

  it("keeps a lone high surrogate and a surrogate pair of a visible character in a range's high surrogate", () => {
    for (const text of ["a\uDB40b", "a\uDB40", "x \u{1D11E} y", "\u{E1000}"]) expect(normalize(text).text).toBe(text);
    expect(normalize("a\uDB40\uDC41\uDB40b").text).toBe("a\uDB40b");
  });
});

describe("normalize of Markdown backslash escapes", () => {
  it.each([
    ["ghp\\_abc", "ghp_abc", [0, 1, 2, 4, 5, 6, 7]],
    ["a\\-b\\.c", "a-b.c", [0, 2, 3, 5, 6]],
    ["\\\\_", "\\_", [1, 2]], // an escaped backslash, then _
    ["\\\\\\_", "\\_", [1, 3]], // an escaped backslash, then an escaped _
    ["\\a\\1\\ \\é", "\\a\\1\\ \\é", [0, 1, 2, 3, 4, 5, 6, 7]], // not punctuation: kept
    ["C:\\\\Users\\\\me", "C:\\Users\\me", [0, 1, 3, 4, 5, 6, 7, 8, 10, 11, 12]],
    ["x\\", "x\\", [0, 1]],
    ["\\r\\n", "\\r\\n", [0, 1, 2, 3]],
  ])("%j becomes %j", (original, text, map) => {
    const n = normalize(original);
    expect(n.text).toBe(text);
    expect(Array.from(text, (_, i) => n.toOriginal(i))).toEqual(map);
  });

  it("unescapes every ASCII punctuation character", () => {
    const original = Array.from(ASCII_PUNCTUATION, (p) => `\\${p}`).join("");
    expect(ASCII_PUNCTUATION).toHaveLength(32);
    expect(normalize(original).text).toBe(ASCII_PUNCTUATION);
    expect(normalize(`${original}\r\n${original}`).text).toBe(`${ASCII_PUNCTUATION}\n${ASCII_PUNCTUATION}`);
  });
});

describe("normalize of ANSI escape sequences (try17 H1)", () => {
  const E = "\x1b";
  it.each([
    [`${E}[1m`, 4],
    [`${E}[0;32m`, 7],
    [`${E}[38;5;196m`, 11],
    [`${E}[?25h`, 6],
    [`${E}[1 q`, 5], // an intermediate byte (space)
    [`${E}]8;;https://x\x07`, 15], // OSC 8 ended by BEL
    [`${E}]0;title${E}\\`, 11], // OSC ended by ST
    [`${E}M`, 2],
    [`${E}\\`, 2],
    [`${E}[1`, 0], // unterminated
    [`${E}[1${E}[0m`, 0], // no final byte before the next ESC
    [`${E}]8;;https://x`, 0], // OSC without BEL or ST
    [`${E}]8;;x${E}[0m`, 0], // an ESC other than ST inside an OSC
    [`${E}a`, 0], // not a two-character escape (0x40-0x5F)
    [E, 0],
    [`${E}[${"1".repeat(MAX_ANSI_LENGTH)}m`, 0], // over-long
  ])("%j: %i code units", (text, length) => expect(ansiLength(text, 0)).toBe(length));

  it("stops at the limit", () => expect(ansiLength(`${E}[1m`, 0, 3)).toBe(0));

  it("removes them and maps offsets back to the original", () => {
    const text = `a ${E}[1mXY${E}[0m ${E}]8;;u\x07Z${E}]8;;\x07 ${E}[1`;
    const n = normalize(text);
    expect(n.text).toBe(`a XY Z ${E}[1`);
    expect(n.toOriginal(2)).toBe(6); // X, after ESC[1m
    expect(n.toOriginal(5)).toBe(text.indexOf("Z"));
    expect(n.joins).toBe(true);
  });
});

describe("normalize's joins flag", () => {
  it.each([
    ["a\r\nb\r\n", false],
    ["a\rb", false],
    ["\uFEFFab\r\n", false],
    ["\u00ADab", false],
    ["a\uFEFFb", true],
    ["a\u00ADb", true],
    ["a\\_b", true],
    ["\\_b", true],
    ["a\u{E0020}b", true],
    ["plain", false],
  ])("%j: %s", (text, joins) => expect(normalize(text).joins).toBe(joins));
});

describe("normalizationTriggers", () => {
  it("make a prefix automaton hit at every escape, invisible code unit and CR, with few symbols", () => {
    const used = new Set(Array.from("ghp_\\", (c) => c.charCodeAt(0)));
    const { prefixes, aliases } = normalizationTriggers((c) => used.has(c));
    const automaton = new PrefixAutomaton(["ghp_", ...prefixes], undefined, aliases);
    const texts = ["\r", ...Array.from(ASCII_PUNCTUATION, (p) => `\\${p}`)];
    for (const [from, to] of INVISIBLE_RANGES) for (const cp of new Set([from, (from + to) >> 1, to])) texts.push(String.fromCodePoint(cp));
    for (const t of texts) {
      const hits = automaton.findAll(`x ${t} y`);
      expect(hits.length, JSON.stringify(t)).toBeGreaterThan(0);
      expect(hits.every((h) => h.prefixId >= 1 && h.start === 2), JSON.stringify(t)).toBe(true);
    }
    expect(automaton.findAll("x ghp_ \\a é \u{1F600} y").map((h) => h.prefixId)).toEqual([0]);
    // `_` occurs in a rule prefix: its escape is a prefix of its own; the other punctuation shares one.
    expect(prefixes).toContain("\\_");
    expect(prefixes.filter((p) => p.startsWith("\\"))).toHaveLength(3);
  });

  it("refuses an alias that occurs in a prefix", () => {
    expect(() => new PrefixAutomaton(["a!b"], undefined, new Map([[33, 35]]))).toThrow(TypeError);
  });
});
