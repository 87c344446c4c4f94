/**
 * Placeholder and low-entropy detection for rule validators. A value that a person typed as an
 * example (`ghp_XXXX…`, `…EXAMPLE`, `abcdefgh…`, `YOUR_TOKEN_HERE`) is not reported, while a
 * random token of the documented alphabet passes with overwhelming probability (each check's false
 * rejection rate on random input is below 1e-4; see the comments).
 */

/** Shannon entropy of `s` in bits per character (0 for the empty string). */
export function shannonEntropy(s: string): number {
  if (s.length === 0) return 0;
  if (s.length < 256 && isAscii(s)) return asciiEntropy(s);
  const counts = new Map<string, number>();
  for (const ch of s) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) {
    const p = n / s.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/** True when every code unit of `s` is ASCII (then code units are characters). */
function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 127) return false;
  return true;
}

/**
 * {@link shannonEntropy} of an ASCII string shorter than 256 characters, counted in a byte per
 * code unit instead of a Map: the terms are added in the same order (first occurrence of each
 * character, the Map's insertion order), so the result is the same number, bit for bit.
 */
function asciiEntropy(s: string): number {
  const counts = new Uint8Array(128);
  for (let i = 0; i < s.length; i++) counts[s.charCodeAt(i)]!++;
  let bits = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const n = counts[c]!;
    if (n === 0) continue;
    counts[c] = 0;
    const p = n / s.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/** Length of the longest run of one repeated character. */
export function longestRun(s: string): number {
  let best = s.length > 0 ? 1 : 0;
  let run = 1;
  for (let i = 1; i < s.length; i++) {
    run = s.charCodeAt(i) === s.charCodeAt(i - 1) ? run + 1 : 1;
    if (run > best) best = run;
  }
  return best;
}

/**
 * Length of the longest ascending or descending sequence of consecutive digits or letters
 * (letters compared case-insensitively), e.g. `abcdef`, `aBcDeF`, `0123456789`, `987654`.
 */
export function longestSequence(s: string): number {
  const code = (i: number): number => {
    let c = s.charCodeAt(i);
    // ASCII is lower-cased by arithmetic (no string per character); other code units as before.
    if (c >= 65 && c <= 90) c += 32;
    else if (c > 127) c = s[i]!.toLowerCase().charCodeAt(0);
    if (c >= 48 && c <= 57) return c; // digits
    if (c >= 97 && c <= 122) return c + 1000; // letters, separated from digits
    return -10000 - c; // never consecutive with anything
  };
  let best = s.length > 0 ? 1 : 0;
  let up = 1;
  let down = 1;
  for (let i = 1; i < s.length; i++) {
    const d = code(i) - code(i - 1);
    up = d === 1 ? up + 1 : 1;
    down = d === -1 ? down + 1 : 1;
    best = Math.max(best, up, down);
  }
  return best;
}

/** Words that only occur in hand-written stand-ins for a credential. */
const PLACEHOLDER_WORDS =
  /x{5,}|\*{3,}|\.{3}|example|placeholder|replace[_-]?me|change[_-]?me|dummy|redacted|your[_-]?(?:api[_-]?)?(?:key|token|secret|password)|(?:key|token|secret)[_-]?here|insert[_-]?(?:key|token)|<[a-z_-]+>|\$\{[^}]*\}|\{\{[^}]*\}\}/i;

export interface PlaceholderOptions {
  /** Minimum Shannon entropy in bits/char (default 3, as gitleaks uses for most token rules). */
  readonly minEntropy?: number;
  /** Reject runs of this many identical characters (default 6; `Infinity` for binary-encoded bodies). */
  readonly maxRun?: number;
  /** Reject ascending/descending sequences of this length (default 8). */
  readonly maxSequence?: number;
}

/**
 * True when `body` (the random part of a token, without its fixed prefix) looks hand-written:
 * a placeholder word, a run of one character, an alphabet sequence, or too little entropy.
 * False-rejection odds for a random body: a run of 6 in 64 hex chars ~6e-5; a sequence of 8 in
 * 64 hex chars ~3e-5; entropy < 3 bits for >= 20 random base62 chars is negligible.
 */
export function isPlaceholder(body: string, options: PlaceholderOptions = {}): boolean {
  const { minEntropy = 3, maxRun = 6, maxSequence = 8 } = options;
  if (PLACEHOLDER_WORDS.test(body)) return true;
  if (longestRun(body) >= maxRun) return true;
  if (longestSequence(body) >= maxSequence) return true;
  return shannonEntropy(body) < minEntropy;
}

/** `!isPlaceholder(body, options)`: the usual rule validator. */
export function isPlausibleSecret(body: string, options: PlaceholderOptions = {}): boolean {
  return !isPlaceholder(body, options);
}
