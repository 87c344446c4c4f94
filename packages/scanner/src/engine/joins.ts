/**
 * Joins across a seam (try19 F1): a token written as two string literals concatenated
 * (`"ghp_…" +\n  "…"`), or cut by a plain line break (`ghp_…\n…`). The engine (scan.ts) asks here
 * only at a rule's prefix occurrence where no rule matched: the token run from the prefix to its
 * end ({@link tokenRunEnd}) must end at a seam ({@link seamAt}); the two parts are then joined and
 * matched again. Prose pays, per failed prefix hit, a read of its token run, and only for a prefix
 * one of whose rules may match across a seam ({@link prefixJoins}: no pair-only prefix such as
 * Twilio's `SK`, and `://` only when an `@` follows close enough: 17 % of a Markdown corpus's).
 *
 * Seams:
 * - **string concatenation** (`string-concatenation`): the first literal's closing quote (`"`, `'`
 *   or `` ` ``), spaces or tabs, an operator (`+`: JavaScript, Java, Python, C#...; `.`: PHP, Perl;
 *   `..`: Lua; `&`: Visual Basic; `||`: SQL; none: C and Python adjacent literals), spaces, at
 *   most one line break with the next line's indentation (the operator may stand before or after
 *   it), then the same quote opening the second literal. Any rule may match across it: a closing
 *   quote and an opening quote around an operator are what code says to join.
 * - **line break** (`line-break`): the token run ends at the end of its line; the second part is
 *   the next line's leading token characters after its indentation. Only rules whose match embeds a
 *   checksum (`Rule.checksum`: GitHub, npm, Cloudflare, Atlassian, age...) may match across it: two
 *   unrelated lines (`ghp_ then\nsomething`) join into a value whose checksum fails.
 *
 * Limits: one seam per token (three literals `"a" + "b" + "c"` are not joined); each part at most
 * {@link MAX_PART} code units; no seam inside a decoded run's escape (the decode layer's word
 * ends at spaces).
 */

import type { CompiledRule } from "./compile.js";
import { checkPatternSafety } from "./safety.js";

/** Longest part on either side of a seam read (no credential of the catalog is longer; a PEM is a key block). */
export const MAX_PART = 512;

/** Spaces or tabs read around a seam's operator and as a continuation line's indentation. */
const MAX_SPACES = 64;

/**
 * Most code units from a first part's end to its second part's start (`Seam.next` − end,
 * {@link seamAt}): the closing quote, spaces, an operator (2 at most), spaces, a line break and
 * indentation (the operator before or after the break: three runs of spaces), the opening quote. A
 * line break's seam is shorter (the break, indentation).
 */
export const MAX_SEAM_GAP = 3 * MAX_SPACES + 5;

/** How two parts were joined: the finding's `encoding`. */
export type SeamKind = "string-concatenation" | "line-break";

export interface Seam {
  readonly kind: SeamKind;
  /** Start of the second part (its first token character) in the text. */
  readonly next: number;
}

const TOKEN = new Uint8Array(128);
for (let c = 48; c <= 57; c++) TOKEN[c] = 1;
for (let c = 65; c <= 90; c++) TOKEN[c] = 1;
for (let c = 97; c <= 122; c++) TOKEN[c] = 1;
for (const ch of "_-.+/=~:$") TOKEN[ch.charCodeAt(0)] = 1;

/** Is the code unit a token character (ASCII letters, digits, `_-.+/=~:$`)? */
export const isTokenUnit = (c: number): boolean => c < 128 && TOKEN[c] === 1;

/** End of the run of token characters starting at `from` (first index not one), read at most to `limit`. */
export function tokenRunEnd(text: string, from: number, limit: number): number {
  const stop = limit < text.length ? limit : text.length;
  let i = from;
  for (; i < stop; i++) {
    const c = text.charCodeAt(i);
    if (c >= 128 || TOKEN[c] !== 1) break;
  }
  return i;
}

const isBlank = (c: number): boolean => c === 32 || c === 9;

function skipBlanks(text: string, i: number): number {
  const stop = Math.min(text.length, i + MAX_SPACES);
  while (i < stop && isBlank(text.charCodeAt(i))) i++;
  return i;
}

/** Length of a concatenation operator at `i` (`+`, `.`, `..`, `&`, `||`), else 0. */
function operatorLength(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === 43 /* + */ || c === 38 /* & */) return 1;
  if (c === 46 /* . */) return text.charCodeAt(i + 1) === 46 ? 2 : 1;
  if (c === 124 /* | */ && text.charCodeAt(i + 1) === 124) return 2;
  return 0;
}

/**
 * The seam at `end`, the end of a token run (the code unit after its last token character), or
 * undefined. O(MAX_SPACES).
 */
export function seamAt(text: string, end: number): Seam | undefined {
  const c = text.charCodeAt(end);
  if (c === 10) {
    const next = skipBlanks(text, end + 1);
    return isTokenUnit(text.charCodeAt(next)) ? { kind: "line-break", next } : undefined;
  }
  if (c !== 34 && c !== 39 && c !== 96) return undefined;
  let i = skipBlanks(text, end + 1);
  let op = operatorLength(text, i);
  let between = op > 0; // `"a""b"` is a doubled quote (CSV, SQL, VB), not two literals
  if (op > 0) i = skipBlanks(text, i + op);
  if (text.charCodeAt(i) === 10) {
    between = true;
    i = skipBlanks(text, i + 1);
    if (op === 0 && (op = operatorLength(text, i)) > 0) i = skipBlanks(text, i + op);
  }
  if (!between && i === end + 1) return undefined;
  if (text.charCodeAt(i) !== c || !isTokenUnit(text.charCodeAt(i + 1))) return undefined;
  return { kind: "string-concatenation", next: i + 1 };
}

/**
 * What a missed hit of one prefix may be joined across (scan.ts reads the token run after such a
 * hit only for a prefix that has one: {@link prefixJoins}).
 */
export interface PrefixJoins {
  /** A rule of the prefix embeds a checksum (`Rule.checksum`): a plain line break may be a seam, not only a string concatenation. */
  readonly lineBreak: boolean;
  /**
   * When every rule of the prefix that may be joined holds a literal of one code unit that is no
   * token character (`Rule.contains`: the `@` of a URL's user info): that literal. The parts are
   * token runs, so a joined match can hold it only as the code unit after its second part, at most
   * `within` code units after the hit in the text (the rules' `containsWithin` plus
   * {@link MAX_SEAM_GAP}); where the text holds none that close, no rule of the prefix can match
   * across a seam. Undefined otherwise.
   */
  readonly literal: string | undefined;
  readonly within: number;
  /**
   * The shortest match of the rules that may be joined (their patterns' `minWidth`, lookarounds
   * count none): a match tried at the hit reads at most the two parts and the code unit after the
   * second, so a seam whose parts are shorter together joins nothing and is not kept (a line of
   * `"ghp_" +` repeated: a seam every 9 code units, no token of 40 in any two of them).
   */
  readonly shortest: number;
}

/**
 * The {@link PrefixJoins} of a prefix whose rules are `rules`, or undefined when none may be joined
 * (all are pair rules: matchJoined in scan.ts tries no pair rule). Computed once per compiled catalog.
 */
export function prefixJoins(rules: readonly CompiledRule[]): PrefixJoins | undefined {
  const joinable = rules.filter((cr) => cr.rule.pair === undefined);
  if (joinable.length === 0) return undefined;
  const literal = joinable[0]!.contains;
  const outside = literal !== undefined && literal.length === 1 && !isTokenUnit(literal.charCodeAt(0)) && joinable.every((cr) => cr.contains === literal);
  return {
    lineBreak: joinable.some((cr) => cr.rule.checksum === true),
    literal: outside ? literal : undefined,
    within: outside ? Math.max(...joinable.map((cr) => cr.containsWithin)) + MAX_SEAM_GAP : 0,
    shortest: Math.min(...joinable.map((cr) => checkPatternSafety(cr.rule.pattern).minWidth)),
  };
}
