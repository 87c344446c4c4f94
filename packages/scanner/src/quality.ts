/**
 * The scanner's quality report (issue 10, "Measured"): a labelled corpus generated from each rule's
 * own examples, fake tokens built at run time. Positives: every positive example of every rule,
 * bare and wrapped in the {@link CONTEXTS} a token meets in notes, diffs, JSON and URLs; a positive
 * is found when the full catalog reports the rule there. Near misses: every negative example
 * (placeholders, truncations, bad checksums, a prefix inside a word …), bare and in the same
 * contexts that cannot complete a truncated token ({@link NEAR_MISS_CONTEXTS}); one is a false
 * positive when the full catalog reports the rule it is a near miss of.
 * Used by `npm run quality -w @teammem/scanner` (bench/quality.mjs) and by quality.test.ts, which
 * asserts the goal: recall >= 99 %, no false positive on the near misses.
 */
import type { Rule } from "./rule.js";
import { scan } from "./scan.js";

export interface Context {
  readonly name: string;
  /** Text before and after the example. */
  readonly pre: string;
  readonly post: string;
  /** Line-end rewriting of the example and its surroundings ("\r\n" or "\r"). */
  readonly newline?: string;
}

/** The contexts of issue 10 (24 of them). */
export const CONTEXTS: readonly Context[] = [
  { name: "sentence end .", pre: "The staging token is ", post: "." },
  { name: "sentence end ,", pre: "Use ", post: ", then restart." },
  { name: "parentheses", pre: "a key (", post: ") here" },
  { name: "square brackets", pre: "[", post: "]" },
  { name: "colon after", pre: "token ", post: ": rotated" },
  { name: "double quotes", pre: 'say "', post: '" twice' },
  { name: "single quotes", pre: "say '", post: "' twice" },
  { name: "backticks", pre: "run `", post: "` now" },
  { name: "fenced block", pre: "```\n", post: "\n```\n" },
  { name: "emphasis *", pre: "see *", post: "* here" },
  { name: "strong **", pre: "see **", post: "** here" },
  { name: "emphasis _", pre: "see _", post: "_ here" },
  { name: "strong __", pre: "see __", post: "__ here" },
  { name: "diff line +", pre: "```diff\n+", post: "\n```" },
  { name: "diff line -", pre: "```diff\n-", post: "\n```" },
  { name: "quote >", pre: "> ", post: "\n" },
  { name: "quote >, no space", pre: ">", post: "\n" },
  { name: "JSON string with \\n escapes", pre: '{"note": "line one\\n', post: '\\nline three"}' },
  { name: "JSON string with \\t escapes", pre: '{"note": "a\\t', post: '\\t"}' },
  { name: "URL query", pre: "https://example.com/cb?state=1&token=", post: "&next=%2F" },
  { name: "CRLF line ends", pre: "first\n", post: "\nlast\n", newline: "\r\n" },
  { name: "CR-only line ends", pre: "first\n", post: "\nlast\n", newline: "\r" },
  { name: "end of file without newline", pre: "last line: ", post: "" },
  { name: "angle brackets", pre: "<", post: ">" },
];

/** `text` with every LF (not part of a CRLF already) written as `newline`, and where offset `i` moved to. */
export function withNewlines(text: string, newline: string): { out: string; moved: (i: number) => number } {
  const out = text.replace(/(?<!\r)\n/g, newline);
  const moved = (i: number) => i + (newline.length - 1) * (text.slice(0, i).match(/(?<!\r)\n/g)?.length ?? 0);
  return { out, moved };
}

/** `example` bare and in every context of `contexts`. */
export function inContexts(example: string, contexts: readonly Context[] = CONTEXTS): string[] {
  return [example, ...contexts.map((c) => withNewlines(c.pre + example + c.post, c.newline ?? "\n").out)];
}

/**
 * The contexts near misses are wrapped in: all but those that end a token with `_` or `.`, which
 * many token alphabets contain: a token one character short followed by `_` (`_glpat-…_`) or `.`
 * is the same text as a whole token ending in that character, so no scanner can call it a near miss.
 */
export const NEAR_MISS_CONTEXTS: readonly Context[] = CONTEXTS.filter((c) => !/^[_.]/.test(c.post));

export interface RuleQuality {
  readonly ruleId: string;
  readonly positives: number;
  readonly found: number;
  readonly nearMisses: number;
  readonly falsePositives: number;
  /** Texts (never printed by the report: they hold fake tokens) that were missed / falsely reported. */
  readonly missed: readonly string[];
  readonly reported: readonly string[];
}

export interface QualityReport {
  readonly rules: readonly RuleQuality[];
  readonly positives: number;
  readonly found: number;
  /** found / positives. */
  readonly recall: number;
  readonly nearMisses: number;
  readonly falsePositives: number;
}

/** Runs the labelled corpus of `rules` against the full catalog `catalog` (default: `rules`). */
export function qualityReport(rules: readonly Rule[], catalog: readonly Rule[] = rules): QualityReport {
  const per: RuleQuality[] = [];
  for (const rule of rules) {
    const { positive, negative } = rule.examples();
    const reports = (text: string) => scan(text, { rules: catalog }).some((f) => f.ruleId === rule.id);
    const missed = positive.flatMap((t) => inContexts(t)).filter((t) => !reports(t));
    const reported = negative.flatMap((t) => inContexts(t, NEAR_MISS_CONTEXTS)).filter(reports);
    per.push({
      ruleId: rule.id,
      positives: positive.length * (CONTEXTS.length + 1),
      found: positive.length * (CONTEXTS.length + 1) - missed.length,
      nearMisses: negative.length * (NEAR_MISS_CONTEXTS.length + 1),
      falsePositives: reported.length,
      missed,
      reported,
    });
  }
  const sum = (f: (r: RuleQuality) => number) => per.reduce((a, r) => a + f(r), 0);
  const positives = sum((r) => r.positives);
  const found = sum((r) => r.found);
  return { rules: per, positives, found, recall: positives === 0 ? 1 : found / positives, nearMisses: sum((r) => r.nearMisses), falsePositives: sum((r) => r.falsePositives) };
}
