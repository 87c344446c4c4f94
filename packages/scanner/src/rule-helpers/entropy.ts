/**
 * Plausibility checks for rule validators: does a matched value look like a generated credential
 * rather than a placeholder someone typed (`xoxb-xxxx…`, `sk_live_YOUR_KEY`, `AAAA…`)?
 * Pure functions, no state.
 */

export { shannonEntropy } from "./placeholder.js";
import { shannonEntropy } from "./placeholder.js";

/**
 * Words and runs that only placeholders contain: five or more `x`, three or more `*`/`#`/`.`,
 * "your key/token/secret/api", "placeholder", "replace me", "change me", "redacted", "dummy",
 * "insert your", "_here". Case-insensitive. Random base62 text of 100 characters holds one of
 * these with probability below 1e-5.
 */
const PLACEHOLDER =
  /x{5,}|[*#.]{3,}|your[_-]?(?:api|key|token|secret)|placeholder|replace[_-]?me|change[_-]?me|redacted|dummy|insert[_-]?your|_here(?![a-z])/i;

/** Six or more copies of one character in a row (random 64-hex text: about 1 in 20,000). */
const LONG_RUN = /(.)\1{5,}/;

/** True if `value` contains a placeholder word or a run of one repeated character. */
export function isPlaceholder(value: string): boolean {
  return PLACEHOLDER.test(value) || LONG_RUN.test(value);
}

/**
 * True if `value` (the random part of a token, without its fixed prefix) plausibly came from a
 * random generator: no placeholder marker and Shannon entropy at least `minEntropy` bits per
 * character (default 3; random base62 of 20+ characters scores about 4, random hex about 3.7,
 * `abcabcabc` 1.6).
 */
export function looksRandom(value: string, minEntropy = 3): boolean {
  return !isPlaceholder(value) && shannonEntropy(value) >= minEntropy;
}

/** True if `value` has at least `min` upper-case ASCII letters and `min` lower-case ones. */
export function hasMixedCase(value: string, min: number): boolean {
  let upper = 0;
  let lower = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c >= 65 && c <= 90) upper++;
    else if (c >= 97 && c <= 122) lower++;
  }
  return upper >= min && lower >= min;
}
