/**
 * The pattern of a secret next to the ID that names it (AWS secret access key and access key ID,
 * Twilio API key secret and SID): the ID alone only names a key, the two together are the
 * credential, in either order.
 *
 * A rule built by {@link pairRule} carries both a regular expression (the reference: what the
 * safety check and the token boundaries read) and a {@link PairSpec} the scan uses instead
 * (pair-search.ts): tried at every ID, the regex reads the whole window around it (up to
 * 2 × 5 × 160 code units), so a line of repeated IDs cost ~40x Markdown per byte; the scan finds the
 * same secret from positions collected once per text, in O(log n) per ID.
 */
import type { PairSpec } from "../rule.js";

/** Newlines the gap may cross: the ID's line or one of the next (previous) 4. */
const MAX_LINES = 4;
/** Code units of each line the gap may read. */
const MAX_LINE_CHARS = 160;

/** The same line or one of the next 4, each read up to 160 characters (lazy: the nearest secret wins). */
const GAP = String.raw`(?:[^\n]{0,${MAX_LINE_CHARS}}\n){0,${MAX_LINES}}?[^\n]{0,${MAX_LINE_CHARS}}?`;

/**
 * A sticky pattern tried at the ID (`id`, a regex source starting with the rule's literal prefix):
 * the ID, then optionally the gap and a run of exactly `length` characters of `secretChar` after it;
 * a lookbehind then captures `secret`: the run just read (a secret after the ID), or, when nothing
 * after the ID was read, a run before the ID within the same gap (a secret written first): the
 * nearest on the ID's line, else the first in text order on the 4 lines before it. One `secret`
 * group serves both orders. Each attempt reads at most 5 lines of 160 characters on each side.
 */
export function pairPattern(id: string, secretChar: string, length: number): RegExp {
  const run = `(?<!${secretChar})${secretChar}{${length}}(?!${secretChar})`;
  const before = `(?<!${secretChar})(?<secret>${secretChar}{${length}})(?!${secretChar})`;
  return new RegExp(`${id}(?:${GAP}${run})?(?<=${before}(?:${GAP}${id})?)`, "y");
}

/**
 * The `pattern` and `pair` fields of a pair rule: {@link pairPattern} and the {@link PairSpec} with
 * the same ID, alphabet (`secretChar`, a character class of ASCII characters only) and window.
 */
export function pairRule(id: string, secretChar: string, length: number): { pattern: RegExp; pair: PairSpec } {
  const cls = new RegExp(`^${secretChar}$`);
  const secretChars = Uint8Array.from({ length: 128 }, (_, c) => (cls.test(String.fromCharCode(c)) ? 1 : 0));
  return {
    pattern: pairPattern(id, secretChar, length),
    pair: { id: new RegExp(id, "y"), secretChars, length, maxLines: MAX_LINES, maxLineChars: MAX_LINE_CHARS },
  };
}
