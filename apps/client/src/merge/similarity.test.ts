import { describe, expect, it } from "vitest";
import { sha256Hex } from "@teammem/protocol";
import { pairRenames, similarity } from "./similarity.js";

const file = (path: string, text: string) => ({ path, text, sha256: sha256Hex(text) });
const notes = Array.from({ length: 10 }, (_, i) => `- note ${i}\n`).join("");

describe("rename similarity", () => {
  it("scores shared lines by bytes against the larger text, ignoring line endings", () => {
    expect(similarity(notes, notes.replace(/\n/g, "\r\n"))).toBe(1);
    expect(similarity("a\nb\n", "a\nc\n")).toBe(0.5);
    expect(similarity("", "")).toBe(0);
  });
  it("pairs identical content first, then the most similar pair at 50% or more, each file once", () => {
    const deleted = [file("a.md", notes), file("b.md", "# B\n" + notes), file("c.md", "unrelated\n")];
    const created = [file("docs/a.md", notes), file("docs/b.md", "# B\n" + notes + "- one more\n"), file("z.md", "something else\n")];
    expect(pairRenames(deleted, created)).toEqual([
      ["a.md", "docs/a.md"],
      ["b.md", "docs/b.md"],
    ]);
  });
  it("never pairs empty files, and pairs by sha256 alone when a text is not known", () => {
    expect(pairRenames([file("e.md", "")], [file("f.md", "")])).toEqual([]);
    expect(pairRenames([{ path: "o.md", text: undefined, sha256: sha256Hex(notes) }], [file("n.md", notes)])).toEqual([["o.md", "n.md"]]);
  });
});
