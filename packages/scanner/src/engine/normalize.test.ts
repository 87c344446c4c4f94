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
