import { describe, expect, it } from "vitest";
import { mergeThreeWay, splitLines } from "../../src/merge/three-way.js";

describe("splitLines", () => {
  it("keeps each line's terminator and a final line without one", () => {
    expect(splitLines("a\r\nb\nc")).toEqual(["a\r\n", "b\n", "c"]);
    expect(splitLines("")).toEqual([]);
    expect(splitLines("\n\n")).toEqual(["\n", "\n"]);
  });
});

describe("mergeThreeWay", () => {
  const base = "one\ntwo\nthree\nfour\nfive\n";
  it("combines edits of different lines", () => {
    const head = "ONE\ntwo\nthree\nfour\nfive\n";
    const incoming = "one\ntwo\nthree\nfour\nFIVE\n";
    expect(mergeThreeWay(base, head, incoming)).toEqual({ clean: true, content: "ONE\ntwo\nthree\nfour\nFIVE\n" });
  });
  it("reports overlapping edits of the same line as not clean", () => {
    expect(mergeThreeWay(base, "one\nTWO\nthree\nfour\nfive\n", "one\n2\nthree\nfour\nfive\n")).toEqual({ clean: false });
  });
  it("treats the same change on both sides as clean", () => {
    const both = "one\nTWO\nthree\nfour\nfive\n";
    expect(mergeThreeWay(base, both, both)).toEqual({ clean: true, content: both });
  });
  it("keeps CRLF line endings and a missing final newline", () => {
    const b = "a\r\nb\r\nc\r\nd";
    expect(mergeThreeWay(b, "A\r\nb\r\nc\r\nd", "a\r\nb\r\nc\r\nD")).toEqual({ clean: true, content: "A\r\nb\r\nc\r\nD" });
  });
  it("treats two different creations from an empty base as overlapping", () => {
    expect(mergeThreeWay("", "x\n", "y\n")).toEqual({ clean: false });
  });
  it("takes the only changed side when the other equals the base", () => {
    expect(mergeThreeWay("a\n", "a\n", "b\n")).toEqual({ clean: true, content: "b\n" });
    expect(mergeThreeWay("a\n", "b\n", "a\n")).toEqual({ clean: true, content: "b\n" });
  });
  it("merges insertions next to shared lines at the start and end of a large file", () => {
    const lines = Array.from({ length: 2000 }, (_, i) => `l${i}\n`);
    const head = [...lines];
    head.splice(1, 0, "HEAD\n");
    const incoming = [...lines];
    incoming.splice(1999, 0, "INCOMING\n");
    const expected = [...head];
    expected.splice(2000, 0, "INCOMING\n");
    expect(mergeThreeWay(lines.join(""), head.join(""), incoming.join(""))).toEqual({ clean: true, content: expected.join("") });
  });
  it("merges edits of neighbouring regions separated by an unchanged line", () => {
    expect(mergeThreeWay("a\nb\nc\n", "a\nX\nb\nc\n", "a\nb\nY\nc\n")).toEqual({ clean: true, content: "a\nX\nb\nY\nc\n" });
  });
});
