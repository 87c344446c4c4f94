import { describe, expect, it } from "vitest";
import { eolStyle, splitLines } from "./lines.js";
import { mergeText, type MergePolicy } from "./merge-text.js";

const merge = (base: string, server: string, local: string, policy: MergePolicy = "conflict") => mergeText({ base, server, local, policy });
const clean = (content: string, union = false) => ({ clean: true, content, union });

describe("splitLines", () => {
  it("keeps each line's terminator and a final line without one", () => {
    expect(splitLines("a\r\nb\nc")).toEqual(["a\r\n", "b\n", "c"]);
    expect(splitLines("")).toEqual([]);
    expect(splitLines("\n\n")).toEqual(["\n", "\n"]);
  });
});

describe("eolStyle", () => {
  it("tells LF, CRLF, mixed and no line break apart (a lone CR is no line break)", () => {
    expect([eolStyle("a\nb\n"), eolStyle("a\r\nb\r\n"), eolStyle("a\r\nb\n"), eolStyle("a\rb"), eolStyle("")]).toEqual(["lf", "crlf", "mixed", "none", "none"]);
  });
});

describe("mergeText under either policy", () => {
  const base = "one\ntwo\nthree\nfour\nfive\n";
  it.each(["union", "conflict"] as const)("combines edits of different lines (%s)", (policy) => {
    expect(merge(base, "ONE\ntwo\nthree\nfour\nfive\n", "one\ntwo\nthree\nfour\nFIVE\n", policy)).toEqual(clean("ONE\ntwo\nthree\nfour\nFIVE\n"));
  });
  it.each(["union", "conflict"] as const)("keeps overlapping edits of the same line as a conflict hunk with base, server and local lines (%s)", (policy) => {
    expect(merge(base, "one\nTWO\nthree\nfour\nfive\n", "one\n2\nthree\nfour\nfive\n", policy)).toEqual({
      clean: false,
      eol: "\n",
      regions: [
        { conflict: false, lines: ["one\n"] },
        { conflict: true, base: ["two\n"], server: ["TWO\n"], local: ["2\n"] },
        { conflict: false, lines: ["three\n", "four\n", "five\n"] },
      ],
    });
  });
  it("treats the same change on both sides as clean", () => {
    const both = "one\nTWO\nthree\nfour\nfive\n";
    expect(merge(base, both, both)).toEqual(clean(both));
  });
  it("takes the only changed side when the other equals the base", () => {
    expect(merge("a\n", "a\n", "b\n")).toEqual(clean("b\n"));
    expect(merge("a\n", "b\n", "a\n")).toEqual(clean("b\n"));
  });
  it("merges edits of neighbouring regions separated by an unchanged line", () => {
    expect(merge("a\nb\nc\n", "a\nX\nb\nc\n", "a\nb\nY\nc\n")).toEqual(clean("a\nX\nb\nY\nc\n"));
  });
  it("merges insertions next to shared lines at the start and end of a large file", () => {
    const lines = Array.from({ length: 2000 }, (_, i) => `l${i}\n`);
    const server = [...lines];
    server.splice(1, 0, "SERVER\n");
    const local = [...lines];
    local.splice(1999, 0, "LOCAL\n");
    const expected = [...server];
    expected.splice(2000, 0, "LOCAL\n");
    expect(merge(lines.join(""), server.join(""), local.join(""))).toEqual(clean(expected.join("")));
  });
});

describe("mergeText with policy union", () => {
  const memory = "# Memory\n- build with make\n";
  it("keeps two lines appended at the end, the server's first (issue 8)", () => {
    expect(merge(memory, memory + "- alice's line\n", memory + "- bob's line\n", "union")).toEqual(clean(memory + "- alice's line\n- bob's line\n", true));
  });
  it("keeps bullets inserted at the same place in the middle", () => {
    const base = "# A\n- a1\n# B\n- b1\n";
    expect(merge(base, "# A\n- a1\n- from server\n# B\n- b1\n", "# A\n- a1\n- from local\n# B\n- b1\n", "union")).toEqual(
      clean("# A\n- a1\n- from server\n- from local\n# B\n- b1\n", true),
    );
  });
  it("keeps once the lines both insertions start or end with", () => {
    expect(merge(memory, memory + "\n## Notes\n- x\n", memory + "\n## Notes\n- y\n", "union")).toEqual(clean(memory + "\n## Notes\n- x\n- y\n", true));
  });
  it("unites two different creations of one path (empty base), their shared heading once", () => {
    expect(merge("", "# Memory\n- a\n", "# Memory\n- b\n", "union")).toEqual(clean("# Memory\n- a\n- b\n", true));
  });
  it("keeps a line appended after a line the other side edited", () => {
    expect(merge("l1\nl2\n", "l1\nL2 edited\n", "l1\nl2\nl3\n", "union")).toEqual(clean("l1\nL2 edited\nl3\n", true));
    expect(merge("l1\nl2\n", "l1\nl2\nl3\n", "l1\nL2 edited\n", "union")).toEqual(clean("l1\nL2 edited\nl3\n", true));
  });
  it("still conflicts when both sides changed the same line", () => {
    expect(merge(memory, "# Memory\n- build with ninja\n", "# Memory\n- build with bazel\n", "union")).toMatchObject({ clean: false });
  });
  it("appends to files without a final newline as appends, keeping the missing newline", () => {
    expect(merge("a\nb", "a\nb\nc", "a\nb\nd", "union")).toEqual(clean("a\nb\nc\nd", true));
  });
});

describe("mergeText with policy conflict", () => {
  it("keeps two insertions at the same point as a conflict hunk with an empty base, without the lines both share", () => {
    expect(merge("x\n", "x\n# N\n- a\n", "x\n# N\n- b\n")).toEqual({
      clean: false,
      eol: "\n",
      regions: [
        { conflict: false, lines: ["x\n", "# N\n"] },
        { conflict: true, base: [], server: ["- a\n"], local: ["- b\n"] },
      ],
    });
  });
  it("conflicts on two different creations of one path", () => {
    expect(merge("", "x\n", "y\n")).toEqual({ clean: false, eol: "\n", regions: [{ conflict: true, base: [], server: ["x\n"], local: ["y\n"] }] });
  });
});

describe("mergeText and line endings", () => {
  const lf = "one\ntwo\nthree\n";
  const crlf = lf.replace(/\n/g, "\r\n");
  it("merges a whole-file LF to CRLF change with a content edit, in CRLF (issue 8)", () => {
    expect(merge(lf, "one\nTWO\nthree\n", crlf)).toEqual(clean("one\r\nTWO\r\nthree\r\n"));
    expect(merge(lf, crlf, "one\nTWO\nthree\n")).toEqual(clean("one\r\nTWO\r\nthree\r\n"));
  });
  it("keeps CRLF files CRLF and a missing final newline missing", () => {
    expect(merge("a\r\nb\r\nc\r\nd", "A\r\nb\r\nc\r\nd", "a\r\nb\r\nc\r\nD")).toEqual(clean("A\r\nb\r\nc\r\nD"));
  });
  it("merges files that mix endings line by line, as they are", () => {
    expect(merge("a\r\nb\nc\n", "A\r\nb\nc\n", "a\r\nb\nC\n")).toEqual(clean("A\r\nb\nC\n"));
  });
  it("writes conflict hunks in the file's style", () => {
    expect(merge(crlf, "one\r\nTWO\r\nthree\r\n", "one\r\n2\r\nthree\r\n")).toEqual({
      clean: false,
      eol: "\r\n",
      regions: [
        { conflict: false, lines: ["one\r\n"] },
        { conflict: true, base: ["two\r\n"], server: ["TWO\r\n"], local: ["2\r\n"] },
        { conflict: false, lines: ["three\r\n"] },
      ],
    });
  });
});

describe("mergeText on large texts", () => {
  const lines = (n: number, f: (i: number) => string) => Array.from({ length: n }, (_, i) => f(i)).join("");
  it("merges edits spread over 50,000 lines, split at the lines all three have once", () => {
    const base = lines(50_000, (i) => `entry ${i}\n`);
    const server = lines(50_000, (i) => (i % 1000 === 0 ? `entry ${i} (server)\n` : `entry ${i}\n`));
    const local = lines(50_000, (i) => (i % 1000 === 500 ? `entry ${i} (local)\n` : `entry ${i}\n`));
    const expected = lines(50_000, (i) => (i % 1000 === 0 ? `entry ${i} (server)\n` : i % 1000 === 500 ? `entry ${i} (local)\n` : `entry ${i}\n`));
    expect(merge(base, server, local)).toEqual(clean(expected));
  });
  it("handles a part too long to diff line by line as one hunk: merged when one side only added lines around it, else a conflict", () => {
    const same = "x\n".repeat(12_000); // no line occurs once: nothing to split at
    expect(merge(same, "top\n" + same + "bottom\n", same.replace("x\n".repeat(6001), "x\n".repeat(6000) + "y\n"), "union")).toEqual(
      clean("top\n" + same.replace("x\n".repeat(6001), "x\n".repeat(6000) + "y\n") + "bottom\n", true),
    );
    expect(merge(same, "first\n" + same.slice(2), same.replace("x\n".repeat(6001), "x\n".repeat(6000) + "y\n"), "union")).toMatchObject({ clean: false });
  });
});

describe("mergeText on hostile input", () => {
  it("merges a 256 KiB file of one repeated line edited on both sides (no anchors, one hunk) without diffing it line by line", () => {
    const same = "x\n".repeat(131_072);
    const server = "x\n".repeat(65_535) + "y\n" + "x\n".repeat(65_536);
    const local = "x\n".repeat(65_536) + "z\n" + "x\n".repeat(65_535);
    expect(merge(same, server, local, "union")).toMatchObject({ clean: false });
    expect(merge(same, "head\n" + same, same + "tail\n", "union")).toEqual(clean("head\n" + same + "tail\n", true));
  });
});
