import { describe, expect, it } from "vitest";
import { mergeWithoutBase } from "./without-base.js";

describe("mergeWithoutBase", () => {
  it("keeps the lines both texts hold once and puts each run where they differ in a conflict hunk with an empty base", () => {
    expect(mergeWithoutBase("# Deploy\nrun make\nship it\nthe end\n", "# Deploy\nrun npm test\nship it\nthe end\nmore\n")).toEqual({
      clean: false,
      eol: "\n",
      regions: [
        { conflict: false, lines: ["# Deploy\n"] },
        { conflict: true, base: [], server: ["run make\n"], local: ["run npm test\n"] },
        { conflict: false, lines: ["ship it\n", "the end\n"] },
        { conflict: true, base: [], server: [], local: ["more\n"] },
      ],
    });
  });

  it("is clean with the server's text when both hold the same lines (line endings aside)", () => {
    expect(mergeWithoutBase("a\r\nb\r\n", "a\nb\n")).toEqual({ clean: true, content: "a\r\nb\r\n", union: false });
  });

  it("compares uniform line endings without them and writes the local side's style", () => {
    expect(mergeWithoutBase("a\r\nb\r\n", "a\nc\n")).toEqual({
      clean: false,
      eol: "\n",
      regions: [
        { conflict: false, lines: ["a\n"] },
        { conflict: true, base: [], server: ["b\n"], local: ["c\n"] },
      ],
    });
  });
});
