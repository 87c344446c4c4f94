/**
 * Generators of fake credentials for rule examples and tests. Deterministic (seeded) so a failing
 * example reproduces; nothing here is a real credential. Tokens are built at run time so no
 * source file holds a live-looking literal.
 */
import { githubChecksum } from "./checksums.js";

export const ALPHABETS = {
  base62: "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
  lowerAlnum: "0123456789abcdefghijklmnopqrstuvwxyz",
  upperAlnum: "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ",
  hex: "0123456789abcdef",
  upperHex: "0123456789ABCDEF",
  base64: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
  base64url: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_",
  digits: "0123456789",
} as const;

/** Mulberry32 PRNG: a small, fast, seeded generator (not for cryptography). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `length` characters drawn from `alphabet` (default base62); the same `seed` gives the same string. */
export function randomChars(length: number, seed: number, alphabet: string = ALPHABETS.base62): string {
  const next = prng(seed);
  let s = "";
  for (let i = 0; i < length; i++) s += alphabet[Math.floor(next() * alphabet.length)];
  return s;
}

/**
 * A fake GitHub token `<prefix>` + 30 base62 + 6-char base62 CRC-32 checksum (valid checksum, so
 * checksum-validating rules report it). `prefix`: `ghp_` (default), `gho_`, `ghu_`, `ghs_`, `ghr_`.
 */
export function fakeGithubToken(prefix = "ghp_", seed = 1): string {
  const random = randomChars(30, seed);
  return prefix + random + githubChecksum(random);
}

/** A fake npm access token `npm_` + 30 base62 + valid 6-char checksum. */
export function fakeNpmToken(seed = 1): string {
  return fakeGithubToken("npm_", seed);
}

/**
 * `token` with its last character changed so its checksum no longer matches (for negative
 * examples). Keeps length and alphabet.
 */
export function breakChecksum(token: string): string {
  const last = token[token.length - 1];
  return token.slice(0, -1) + (last === "A" ? "B" : "A");
}
