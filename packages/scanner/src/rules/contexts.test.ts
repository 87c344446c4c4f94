/**
 * Issue 10, "Boundaries are derived, not hand-written per rule": every positive example of every
 * rule, wrapped in the contexts a token meets in notes, diffs, JSON and URLs, gives the same finding
 * (same rule, same start, same fingerprint) as the bare example.
 */
import { describe, expect, it } from "vitest";
import type { Rule } from "../rule.js";
import { scan } from "../scan.js";
import { RULES } from "./index.js";

interface Context {
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

/** The one finding of `text` under `rule`, as rule, start offset and fingerprint. */
function only(text: string, rule: Rule) {
  return scan(text, { rules: [rule] }).map((f) => ({ ruleId: f.ruleId, offset: f.offset!, fingerprint: f.fingerprint }));
}

/** `text` with every LF (not part of a CRLF already) written as `newline`, and where offset `i` moved to. */
function withNewlines(text: string, newline: string) {
  const out = text.replace(/(?<!\r)\n/g, newline);
  const moved = (i: number) => i + (newline.length - 1) * (text.slice(0, i).match(/(?<!\r)\n/g)?.length ?? 0);
  return { out, moved };
}

describe.each(RULES.map((r) => [r.id, r] as const))("%s keeps its finding in every context", (_id, rule) => {
  const { positive } = rule.examples();
  it.each(CONTEXTS.map((c) => [c.name, c] as const))("%s", (_name, context) => {
    for (const example of positive) {
      const bare = only(example, rule);
      expect(bare, "the bare example gives one finding").toHaveLength(1);
      const { out, moved } = withNewlines(context.pre + example + context.post, context.newline ?? "\n");
      expect(only(out, rule), JSON.stringify(out.slice(0, 200))).toEqual([{ ...bare[0]!, offset: moved(context.pre.length + bare[0]!.offset) }]);
    }
  });
});

describe("the contexts", () => {
  it("are at least 20, as issue 10 asks", () => expect(CONTEXTS.length).toBeGreaterThanOrEqual(20));
});
