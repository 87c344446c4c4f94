import { describe, expect, it } from "vitest";
import { mergeText } from "@teammem/protocol";
import { firstMarkerLine, renderWithMarkers } from "./markers.js";

describe("conflict markers", () => {
  it("writes your lines, the base and the teammate's lines between labelled markers", () => {
    const merged = mergeText({ base: "a\nb\nc\n", server: "a\nB by bob\nc\n", local: "a\nb by me\nc\n", policy: "union" });
    if (merged.clean) throw new Error("expected a conflict");
    expect(renderWithMarkers(merged.regions, merged.eol, { baseVersion: 3, author: "bob", version: 7 })).toBe(
      "a\n<<<<<<< yours (local)\nb by me\n||||||| base v3\nb\n=======\nB by bob\n>>>>>>> bob (v7)\nc\n",
    );
  });
  it("uses the file's CRLF endings for marker lines and names an empty base", () => {
    const merged = mergeText({ base: "", server: "x\r\n", local: "y\r\n", policy: "conflict" });
    if (merged.clean) throw new Error("expected a conflict");
    expect(renderWithMarkers(merged.regions, merged.eol, { baseVersion: 0, author: "", version: 1 })).toBe(
      "<<<<<<< yours (local)\r\ny\r\n||||||| base (none: new on both sides)\r\n=======\r\nx\r\n>>>>>>> server (v1)\r\n",
    );
  });
  it("finds a marker line left in a file, but not a Markdown heading underline", () => {
    expect(firstMarkerLine("Title\n=======\n\ntext\n")).toBeNull();
    expect(firstMarkerLine("a\nb\n>>>>>>> bob (v7)\n")).toBe(3);
    expect(firstMarkerLine("<<<<<<< yours (local)\n")).toBe(1);
  });
});
