import { describe, expect, it } from "vitest";
import { prng, randomChars } from "../fakes.js";
import { PrefixAutomaton, type QuietRange } from "./prefix-automaton.js";

function naive(text: string, prefixes: string[]): string[] {
  const hits: string[] = [];
  prefixes.forEach((p, id) => {
    for (let i = text.indexOf(p); i !== -1; i = text.indexOf(p, i + 1)) hits.push(`${i}:${id}`);
  });
  return hits.sort();
}

describe("PrefixAutomaton", () => {
  it("finds every occurrence of every prefix, overlapping and nested ones included", () => {
    const prefixes = ["ghp_", "gh", "hp_", "xoxb-", "xo", "aaa", "-----BEGIN", "é€x", "a"];
    const ac = new PrefixAutomaton(prefixes);
    const text = "ghp_ghp_ xoxoxb- aaaaa -----BEGIN é€x ghé€x";
    expect(ac.findAll(text).map((h) => `${h.start}:${h.prefixId}`).sort()).toEqual(naive(text, prefixes));
  });

  it("agrees with indexOf on random texts over a small alphabet", () => {
    const next = prng(7);
    for (let round = 0; round < 50; round++) {
      const prefixes = Array.from({ length: 1 + Math.floor(next() * 8) }, (_, k) => randomChars(1 + Math.floor(next() * 4), round * 100 + k, "ab_-"));
      const unique = [...new Set(prefixes)];
      const text = randomChars(300, round, "ab_-x");
      expect(new PrefixAutomaton(unique).findAll(text).map((h) => `${h.start}:${h.prefixId}`).sort()).toEqual(naive(text, unique));
    }
  });

  it("reports each id of a duplicated prefix, own ids before those of shorter suffixes", () => {
    const ac = new PrefixAutomaton(["ab", "b", "ab", "xab"]);
    expect(ac.findAll("xab").map((h) => `${h.start}:${h.prefixId}`)).toEqual(["0:3", "1:0", "1:2", "2:1"]);
  });

  it("refuses an empty prefix", () => {
    expect(() => new PrefixAutomaton([""])).toThrow(TypeError);
  });
});

describe("PrefixAutomaton.forEachHit", () => {
  it("stops when the callback returns true", () => {
    const ac = new PrefixAutomaton(["ab", "cd"]);
    const seen: number[] = [];
    expect(ac.forEachHit("ab cd ab", (start) => (seen.push(start), start === 3))).toBe(true);
    expect(seen).toEqual([0, 3]);
    expect(ac.forEachHit("ab", () => undefined)).toBe(false);
  });
});

describe("PrefixAutomaton on long texts (parallel quarters, chunks)", () => {
  /** Every hit, in delivery order. */
  const delivered = (ac: PrefixAutomaton, text: string): string[] => {
    const out: string[] = [];
    ac.forEachHit(text, (start, id) => void out.push(`${start}:${id}`));
    return out;
  };
  /** The same, computed naively: by end offset, longer prefix first. */
  const naiveOrdered = (text: string, prefixes: string[]): string[] => {
    const ev: [number, number, string][] = [];
    prefixes.forEach((p, id) => {
      for (let i = text.indexOf(p); i !== -1; i = text.indexOf(p, i + 1)) ev.push([i + p.length, -p.length, `${i}:${id}`]);
    });
    return ev.sort((a, b) => a[0] - b[0] || a[1] - b[1]).map((e) => e[2]);
  };

  it("reports the same hits, in the same order, as a naive search, across quarter and chunk boundaries", () => {
    const next = prng(11);
    const prefixes = ["ab", "abab", "b_a", "ba-", "a".repeat(40), "-"];
    const ac = new PrefixAutomaton(prefixes);
    for (const length of [2047, 2048, 5000, 16_384 * 3 + 777]) {
      // Long stretches of `a` (prefixes straddling every boundary) between random text.
      let text = "";
      while (text.length < length) text += next() < 0.3 ? "a".repeat(Math.floor(next() * 90)) : randomChars(Math.floor(next() * 40), text.length, "ab_-x");
      text = text.slice(0, length);
      expect(delivered(ac, text)).toEqual(naiveOrdered(text, prefixes));
    }
  });

  it("reads UTF-16 text exactly (non-Latin-1 prefixes, surrogates) in the parallel path", () => {
    const prefixes = ["\u200B", "é€x", "😀k"];
    const ac = new PrefixAutomaton(prefixes);
    const text = ("plain text " + "é€x 😀k \u200B ").repeat(400);
    expect(ac.findAll(text).map((h) => `${h.start}:${h.prefixId}`).sort()).toEqual(naive(text, prefixes));
  });

  it("delivers the same hits in the same order through the WebAssembly kernel as through the JavaScript loops", () => {
    // A pass started from inside a callback finds the kernel busy and takes the JavaScript loops.
    expect(typeof (globalThis as { WebAssembly?: unknown }).WebAssembly).toBe("object");
    const next = prng(23);
    const prefixes = ["ab", "abab", "b_a", "ba-", "a".repeat(40), "-", "\u200B", "é€x", "😀k"];
    const ac = new PrefixAutomaton(prefixes, Uint8Array.of(1, 0, 1, 0, 1, 0, 0, 0, 0));
    for (const length of [0, 1, 7, 100, 2047, 2048, 2049, 16_384, 16_384 * 2 + 5, 70_000]) {
      let text = "";
      while (text.length < length) {
        const r = next();
        text += r < 0.25 ? "a".repeat(Math.floor(next() * 90)) : r < 0.3 ? "é€x 😀k\u200B" : randomChars(Math.floor(next() * 40), text.length, "ab_-x ");
      }
      text = text.slice(0, length);
      const direct = delivered(ac, text);
      let nested: string[] | undefined;
      ac.forEachHit("ab", () => void (nested = delivered(ac, text)));
      expect(nested).toEqual(direct);
      const all = new Set(naiveOrdered(text, prefixes));
      expect(direct.filter((h) => !all.has(h))).toEqual([]);
    }
  });

  it("stops in a later quarter when the callback returns true", () => {
    const ac = new PrefixAutomaton(["zz"]);
    const text = "x".repeat(9000) + "zz" + "x".repeat(100) + "zz";
    const seen: number[] = [];
    expect(ac.forEachHit(text, (start) => (seen.push(start), true))).toBe(true);
    expect(seen).toEqual([9000]);
  });
});

describe("PrefixAutomaton hits left out", () => {
  /** Delivered hits as `start:id`. */
  /** `runEnd`: where the callback raises `quiet.until` to at a hit of a quiet id (like the scan: the end of its run). */
  const delivered = (ac: PrefixAutomaton, text: string, quiet?: QuietRange, runEnd?: (start: number) => number): string[] => {
    const out: string[] = [];
    ac.forEachHit(
      text,
      (start, id) => {
        out.push(`${start}:${id}`);
        if (quiet && runEnd !== undefined && id >= quiet.from) quiet.until = runEnd(start);
      },
      quiet,
    );
    return out;
  };

  it("notAfterWord: every hit not glued to a letter or digit before it is reported, short and long texts, dense or not", () => {
    const prefixes = ["AAAA", "ab", "x_"];
    const ac = new PrefixAutomaton(prefixes, Uint8Array.of(1, 1, 0));
    for (const text of ["AAAAAA AAAA-AAAA\nAAAA ab xab x_x_", "A".repeat(70_000) + " AAAA " + "zab ab ".repeat(5000)]) {
      const got = new Set(delivered(ac, text));
      const all = new PrefixAutomaton(prefixes).findAll(text);
      const allKeys = new Set(all.map((h) => `${h.start}:${h.prefixId}`));
      for (const h of all) {
        const before = h.start > 0 ? text[h.start - 1]! : "";
        const glued = h.prefixId !== 2 && /[A-Za-z0-9]/.test(before) && !"nrt".includes(before);
        if (!glued && !got.has(`${h.start}:${h.prefixId}`)) expect.fail(`hit ${h.start}:${h.prefixId} not reported`);
      }
      expect([...got].filter((key) => !allKeys.has(key))).toEqual([]);
      // A run of the prefix's own character: (almost) none of its hits are delivered.
      expect([...got].filter((k) => k.endsWith(":0")).length).toBeLessThan(text.length / 1000 + 10);
    }
  });

  it("quiet: hits of ids from `from` on that start before `until` are not reported; the callback may raise it", () => {
    const ac = new PrefixAutomaton(["ab", "QUFB"]);
    for (const text of ["ab QUFBQUFB ab QUFB", "QUFB".repeat(5000) + " ab " + "QUFB".repeat(5000)]) {
      const runEnd = (start: number): number => (text.indexOf(" ", start) + 1 || text.length + 1) - 1;
      const expected = new PrefixAutomaton(["ab", "QUFB"]).findAll(text).filter((h) => h.prefixId === 0 || text[h.start - 1] !== "B").map((h) => `${h.start}:${h.prefixId}`);
      expect(delivered(ac, text, { from: 1, until: 0, mutedFrom: 0, mutedTo: 0, mutedUntil: 0 }, runEnd)).toEqual(expected);
      expect(delivered(ac, text, { from: 2, until: 0, mutedFrom: 0, mutedTo: 0, mutedUntil: 0 }, runEnd)).toEqual(delivered(ac, text));
    }
  });

  it("muted: once the callback mutes a band of ids up to an offset, none of their hits before it is reported, the others are", () => {
    const ac = new PrefixAutomaton(["ab", "\u00AD", "\\_", "QUFB"]);
    for (const t of ["ab \u00AD ab \\_\u00AD QUFB ab", "ab \u00AD\\_ QUFB ".repeat(3000), "\u00AD".repeat(70_000) + " ab QUFB"]) {
      const all = ac.findAll(t).map((h) => `${h.start}:${h.prefixId}`);
      const first = all.findIndex((k) => k.endsWith(":1") || k.endsWith(":2"));
      const quiet: QuietRange = { from: 3, until: 0, mutedFrom: 1, mutedTo: 3, mutedUntil: 0 };
      const out: string[] = [];
      ac.forEachHit(
        t,
        (start, id) => {
          out.push(`${start}:${id}`);
          if (id === 1 || id === 2) quiet.mutedUntil = Infinity;
        },
        quiet,
      );
      expect(out).toEqual(all.filter((k, i) => i <= first || !(k.endsWith(":1") || k.endsWith(":2"))));
    }
  });
});


describe("PrefixAutomaton.occursAcross", () => {
  it("is true when a prefix of an id from fromId starts in the first piece and ends in the second, and only then", () => {
    const ac = new PrefixAutomaton(["gh", "Z2hwX", "docF"]);
    const text = "..xxZ2h|wXdo|cFzz..";
    const a = (from: number, e: number, s: number, t: number, fromId = 1) => ac.occursAcross(text, from, e, s, t, fromId);
    const bar1 = text.indexOf("|");
    const bar2 = text.indexOf("|", bar1 + 1);
    expect(a(bar1 - 4, bar1, bar1 + 1, bar1 + 5)).toBe(true); // Z2h | wX
    expect(a(bar1 - 1, bar1, bar1 + 1, bar1 + 5)).toBe(false); // the piece before holds only `h`
    expect(a(bar2 - 4, bar2, bar2 + 1, bar2 + 5)).toBe(true); // do | cF (docF)
    expect(a(bar2 - 4, bar2, bar2 + 1, bar2 + 2)).toBe(false); // do | c: not the whole gate
    expect(a(bar2 - 4, bar2, bar2 + 1, bar2 + 5, 3)).toBe(false); // docF's id (2) is below fromId
    // Whole in one piece: not across.
    expect(ac.occursAcross("Z2hwX|zz", 0, 5, 6, 8, 1)).toBe(false);
    expect(ac.occursAcross("zz|Z2hwX", 0, 2, 3, 8, 1)).toBe(false);
    expect(ac.occursAcross("xgh|zz", 0, 3, 4, 6, 0)).toBe(false);
    expect(ac.occursAcross("xg|hz", 0, 2, 3, 5, 0)).toBe(true);
  });
});

describe("PrefixAutomaton.someHit", () => {
  it("calls the test for each hit of a code unit buffer, in order, until it returns true", () => {
    const ac = new PrefixAutomaton(["ghp_", "://", "hp"]);
    const units = (s: string) => Uint16Array.from(s, (c) => c.charCodeAt(0));
    const u = units("xghp_abc://y");
    const seen: string[] = [];
    expect(ac.someHit(u, u.length, (id, start) => (seen.push(`${start}:${id}`), false))).toBe(false);
    expect(seen).toEqual(["2:2", "1:0", "8:1"]);
    expect(ac.someHit(u, u.length, (id) => id === 0)).toBe(true);
    expect(ac.someHit(u, 4, (id) => id === 0)).toBe(false); // ghp_ not whole in the first 4
  });
});
