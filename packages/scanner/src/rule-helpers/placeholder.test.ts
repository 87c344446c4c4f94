import { describe, expect, it } from "vitest";
import { prng } from "../fakes.js";
import { longestSequence, shannonEntropy } from "./placeholder.js";

/** The Map-based entropy every value used before the ASCII fast path (the reference). */
function referenceEntropy(s: string): number {
  const counts = new Map<string, number>();
  for (const ch of s) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) {
    const p = n / s.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/** The per-character `toLowerCase` sequence length of before (the reference). */
function referenceSequence(s: string): number {
  const code = (ch: string): number => {
    const c = ch.toLowerCase().charCodeAt(0);
    if (c >= 48 && c <= 57) return c;
    if (c >= 97 && c <= 122) return c + 1000;
    return -10000 - c;
  };
  let best = s.length > 0 ? 1 : 0;
  let up = 1;
  let down = 1;
  for (let i = 1; i < s.length; i++) {
    const d = code(s[i]!) - code(s[i - 1]!);
    up = d === 1 ? up + 1 : 1;
    down = d === -1 ? down + 1 : 1;
    best = Math.max(best, up, down);
  }
  return best;
}

describe("shannonEntropy and longestSequence (fast paths)", () => {
  const next = prng(3);
  const pick = (alphabet: string, length: number) => Array.from({ length }, () => alphabet[Math.floor(next() * alphabet.length)]).join("");
  const ascii = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join("");
  const samples = [
    "",
    "a",
    "abcdefgh",
    "aBcDeFgH0123",
    "ZYXWVU",
    "x".repeat(255),
    "x".repeat(256),
    ...Array.from({ length: 300 }, (_, i) => pick(i % 3 === 0 ? "ab" : i % 3 === 1 ? "0123456789abcdef" : ascii, 1 + (i % 300))),
    "İstanbul-ABC", // non-ASCII: lower-cases to two code units
    "\u212Aey-KLM", // Kelvin sign lower-cases to ASCII k
    "ghp_😀😀abc",
  ];

  it("gives the same entropy as the Map count, bit for bit", () => {
    for (const s of samples) expect(Object.is(shannonEntropy(s), referenceEntropy(s)), s).toBe(true);
  });

  it("gives the same sequence length as lower-casing each character", () => {
    for (const s of samples) expect(longestSequence(s), s).toBe(referenceSequence(s));
  });
});
