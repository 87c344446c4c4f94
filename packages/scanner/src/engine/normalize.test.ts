import { describe, expect, it } from "vitest";
import { normalize } from "./normalize.js";

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
