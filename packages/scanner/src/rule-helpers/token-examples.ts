/**
 * The usual examples of a prefixed-token rule, shared by the rule modules so each states only
 * what is particular to its format. Tokens come from the rule's own seeded generator, so nothing
 * live-looking is written in source.
 */
import type { RuleExamples } from "../rule.js";

/**
 * Positive: `token` assigned to `envVar` (`ENV=…`), as a JSON string value, and in a quoted shell
 * `export`; negative: the rule's own `negatives` (placeholders, truncations, …) and the token glued
 * to the end of a longer word (`x<token>`). Seeds 1, 2, 5 (positive) and 4 (glued) are used.
 */
export function tokenExamples(token: (seed: number) => string, envVar: string, negatives: readonly string[]): RuleExamples {
  return {
    positive: [`${envVar}=${token(1)}`, `{"token": "${token(2)}"}`, `export ${envVar}='${token(5)}'`],
    negative: [...negatives, `x${token(4)}`],
  };
}
