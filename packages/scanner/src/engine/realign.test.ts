/**
 * Re-alignment of base64 runs (engine/realign.ts): the spans of a run that decode to text at
 * another alignment than the run's, and the ends a run may have had before characters were glued
 * after it.
 */
import { describe, expect, it } from "vitest";
import { fakeGithubPat, randomChars } from "../testing.js";
import { ALPHABETS } from "../fakes.js";
import { alignedSegments, cutSpans, headCuts, MIN_SEGMENT_BYTES, TAIL_BYTES, tailCuts } from "./realign.js";

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

/** headCuts and tailCuts as documented, byte by byte on the decoded run (the reference for their group-wise reading). */
function referenceCuts(run: string, tail: boolean): number[] {
  const bytes = Buffer.from(run, "base64");
  const m = bytes.length;
  const alnum = (b: number) => /[A-Za-z0-9]/.test(String.fromCharCode(b));
  const word = (b: number) => alnum(b) || "_-.+/=~:$".includes(String.fromCharCode(b));
  const glue = (b: number) => alnum(b) || "_-.+/=~".includes(String.fromCharCode(b));
  const out: number[] = [];
  for (let j = 1; j <= 2 && 3 * j + MIN_SEGMENT_BYTES <= m; j++) {
    const before = bytes[3 * j - 1]!;
    if (bytes[3 * j - 3] === 10 || bytes[3 * j - 2] === 10 || before === 10 || before === 13) break;
    if (!glue(before)) continue;
    let w = 3 * j;
    while (w < m && w - 3 * j < TAIL_BYTES && word(bytes[w]!)) w++;
    if (w - 3 * j >= MIN_SEGMENT_BYTES) out.push(4 * j, Math.min(run.length, 4 * Math.ceil(Math.min(m, w + 1) / 3)));
  }
  const value = (i: number) => (run[i] === "-" ? 62 : run[i] === "_" ? 63 : ALPHABETS.base64.indexOf(run[i]!));
  for (let p = m - 1; tail && p >= Math.max(MIN_SEGMENT_BYTES, m - 3); p--) {
    if (bytes[p] === 10 || bytes[p] === 13) break;
    if (!glue(bytes[p]!)) continue;
    const g = 4 * Math.floor(p / 3);
    const r = p % 3;
    if ((r === 1 && (value(g + 1) & 15) !== 0) || (r === 2 && (value(g + 2) & 3) !== 0)) continue;
    let w = p;
    while (w > 0 && p - w < TAIL_BYTES && word(bytes[w - 1]!)) w--;
    if (p - w >= MIN_SEGMENT_BYTES) out.push(4 * Math.floor(Math.max(0, w - 1) / 3), g + (r === 0 ? 0 : r + 1));
  }
  return out;
}

describe("cutSpans", () => {
  it("is headCuts then tailCuts, up to the first span that decodes to more than maxBytes bytes", () => {
    // Runs of words and separators at every alignment, glued characters before and after; every
    // room from 0 to past the longest span. The decode layer stops at the first span over its room.
    const words = ["user:", TOKEN, "x".repeat(40), "short", "a-b.c_d", " ", "\n", "y".repeat(TAIL_BYTES + 50)];
    let checked = 0;
    for (let seed = 0; seed < 200; seed++) {
      const picks = randomChars(6, seed, "01234567").split("").map((d) => words[Number(d)]!);
      const run = `${randomChars(seed % 4, seed + 1000, ALPHABETS.base64)}${b64url(picks.join(""))}${randomChars(seed % 3, seed + 2000, ALPHABETS.base64)}`;
      for (const tail of [false, true]) {
        const all = [...headCuts(run, 0, run.length), ...(tail ? tailCuts(run, 0, run.length) : [])];
        expect(all, `seed ${seed}`).toEqual(referenceCuts(run, tail));
        for (let room = 0; room <= 3 * TAIL_BYTES; room = room < 80 ? room + 1 : room * 2) {
          const expected: number[] = [];
          for (let k = 0; k < all.length && Math.floor(((all[k + 1]! - all[k]!) * 3) / 4) <= room; k += 2) expected.push(all[k]!, all[k + 1]!);
          expect(cutSpans(run, 0, run.length, tail, room), `seed ${seed}, room ${room}`).toEqual(expected);
          checked += all.length;
        }
        expect(cutSpans(run, 0, run.length, tail, Infinity)).toEqual(all);
      }
    }
    expect(checked).toBeGreaterThan(1000);
  });
});
