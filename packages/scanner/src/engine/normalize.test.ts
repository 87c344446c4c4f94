import { describe, expect, it } from "vitest";
import { normalize } from "./normalize.js";

describe("normalize", () => {
  it("returns the same string when nothing is removable", () => {
    const n = normalize("plain\ntext\r only CR");
    expect(n.text).toBe("plain\ntext\r only CR");
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

describe("normalize with many removals", () => {
  it("gives the same text and offsets as with few", () => {
    const unit = "ab\u200B\r\ncd\uD800e\uFEFF";
    const original = unit.repeat(5000);
    const n = normalize(original);
    expect(n.text).toBe("ab\ncd\uD800e".repeat(5000));
    for (let i = 0; i < n.text.length; i += 7) expect(original[n.toOriginal(i)]).toBe(n.text[i]);
  });
});
