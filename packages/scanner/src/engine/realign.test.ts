/**
 * Re-alignment of base64 runs (engine/realign.ts): the spans of a run that decode to text at
 * another alignment than the run's, and the ends a run may have had before characters were glued
 * after it.
 */
import { describe, expect, it } from "vitest";
import { fakeGithubPat, randomChars } from "../testing.js";
import { ALPHABETS } from "../fakes.js";
import { alignedSegments, headCuts, MIN_SEGMENT_BYTES, TAIL_BYTES, tailCuts } from "./realign.js";

const TOKEN = fakeGithubPat(8);
const b64url = (s: string) => Buffer.from(s).toString("base64url");
/** The segments of the whole of `run` as [start, end, decoded text]. */
const segments = (run: string) => {
  const spans = alignedSegments(run, 0, run.length);
  const out: [number, number, string][] = [];
  for (let k = 0; k < spans.length; k += 2) out.push([spans[k]!, spans[k + 1]!, Buffer.from(run.slice(spans[k], spans[k + 1]), "base64").toString("latin1")]);
  return out;
};

describe("alignedSegments", () => {
  it("finds base64 text after 1 to 8 glued characters, at its own alignment, up to its last text byte", () => {
    const encoded = b64url(`user:${TOKEN}`); // 45 bytes: 60 characters, no padding
    for (const glue of ["/", "+a", "abc", "-_-", "secrets/", "sha512-"]) {
      expect(segments(glue + encoded), glue).toEqual([[glue.length, glue.length + 60, `user:${TOKEN}`]]);
    }
    // Glued after it too: the segment ends after its last text byte. 44 bytes are 59 characters:
    // the glued `/` completes the group (a byte 0x3F, `?`); 42 bytes are 56, `/x` makes 0xFF.
    expect(segments(`/${b64url(`usr:${TOKEN}`)}/x`)).toEqual([[1, 61, `usr:${TOKEN}?`]]);
    expect(segments(`/${b64url(`u:${TOKEN}`)}/x`)).toEqual([[1, 57, `u:${TOKEN}`]]);
  });

  it("finds nothing in random base64 or base64 of binary, and keeps one of segments that overlap", () => {
    expect(segments(randomChars(4000, 3, ALPHABETS.base64))).toEqual([]);
    const binary = Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 151 + 7) & 0xff)).toString("base64");
    expect(segments(binary)).toEqual([]);
    // VVVV… decodes to UUUU… at every alignment: one segment is kept, not four.
    const all = segments(`/${"V".repeat(400)}`);
    expect(all).toHaveLength(1);
    expect(all[0]![1] - all[0]![0]).toBeGreaterThanOrEqual(396);
    // A span of fewer than MIN_SEGMENT_BYTES bytes is not a segment.
    expect(segments(`/${Buffer.from("x".repeat(MIN_SEGMENT_BYTES - 1)).toString("base64")}/+/+`)).toEqual([]);
  });
});

describe("tailCuts", () => {
  /** The runs tailCuts gives for `run`, decoded. */
  const tails = (run: string) => {
    const cuts = tailCuts(run, 0, run.length);
    const out: string[] = [];
    for (let k = 0; k < cuts.length; k += 2) out.push(Buffer.from(run.slice(cuts[k], cuts[k + 1]), "base64").toString("latin1"));
    return out;
  };

  it("gives the run without the bytes that characters glued after it added, when they would glue to the token", () => {
    // 44 bytes: 59 characters, the last holding 2 zero bits; `w` after it adds the byte `0`.
    expect(tails(`${b64url(`usr:${TOKEN}`)}w`)).toContain(`usr:${TOKEN}`);
    // 42 bytes: 56 characters, a whole group; `Zg` after it adds `f`.
    expect(tails(`${b64url(`u:${TOKEN}`)}Zg`)).toContain(`u:${TOKEN}`);
  });

  it("keeps the word before the cut and the byte before it, at most TAIL_BYTES bytes", () => {
    const long = `${"notes about the deploy. ".repeat(100)}key: ${TOKEN}`;
    expect(long.length % 3).toBe(0); // a whole last group: `Zg` after it adds a byte `f`
    // From the group holding the space before the token: 1 to 3 bytes before it.
    expect(tails(`${b64url(long)}Zg`).filter((t) => t.endsWith(` ${TOKEN}`) && t.length <= TOKEN.length + 3)).toHaveLength(1);
    const words = `${"notes ".repeat(10)}${"w".repeat(2 * TAIL_BYTES + 1)}`;
    expect(words.length % 3).toBe(0);
    const cut = tails(`${b64url(words)}Zg`);
    expect(cut.length).toBeGreaterThan(0);
    for (const t of cut) expect(t.length).toBeLessThanOrEqual(TAIL_BYTES + 2);
    // A word shorter than MIN_SEGMENT_BYTES bytes has no tail; nor does a cut before a byte that separates.
    expect(tails(`${b64url(`${"notes ".repeat(20)}short`)}Zg`)).toEqual([]);
    expect(tails(b64url(`u:${TOKEN}\n`))).toEqual([]);
  });
});

describe("headCuts", () => {
  const heads = (run: string) => {
    const cuts = headCuts(run, 0, run.length);
    const out: string[] = [];
    for (let k = 0; k < cuts.length; k += 2) out.push(Buffer.from(run.slice(cuts[k], cuts[k + 1]), "base64").toString("latin1"));
    return out;
  };

  it("gives the run without the groups glued before it that decoded to text and would glue to the token", () => {
    // `film` decodes to `~)f`: a segment starting there has an `f` glued to the token.
    expect(Buffer.from("film", "base64").toString("latin1")).toBe("~)f");
    expect(heads(`film${b64url(`${TOKEN} `)}`)).toContain(`${TOKEN} `);
    expect(heads(`film${b64url(TOKEN)}`)).toContain(TOKEN);
  });

  it("cuts nothing before a line end or a byte that separates, nor words shorter than MIN_SEGMENT_BYTES", () => {
    expect(heads(b64url(`\n${TOKEN}`))).toEqual([]);
    // Byte 2 is a space: no cut after the first group (one after the second, inside the token, is harmless).
    expect(heads(b64url(`ab ${TOKEN}`)).filter((t) => t.startsWith(TOKEN))).toEqual([]);
    expect(heads(b64url(`abcshort words only here, nothing long`))).toEqual([]);
  });
});
