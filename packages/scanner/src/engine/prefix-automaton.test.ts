import { describe, expect, it } from "vitest";
import { prng, randomChars } from "../fakes.js";
import { PrefixAutomaton } from "./prefix-automaton.js";

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
