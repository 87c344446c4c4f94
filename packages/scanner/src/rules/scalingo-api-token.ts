import { ALPHABETS, randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";

/**
 * Scalingo API token: `tk-us-` + 48 characters of `[A-Za-z0-9_-]`.
 * Format: Scalingo docs, "API tokens" (https://doc.scalingo.com/platform/cli/api-token); gitleaks rule `scalingo-api-token`.
 */
const token = (seed: number): string => `tk-us-${randomChars(48, seed, ALPHABETS.base64url)}`;

const rule: Rule = {
  id: "scalingo-api-token",
  label: "Scalingo API token",
  prefixes: ["tk-us-"],
  pattern: /tk-us-[A-Za-z0-9_-]{48}/y,
  validate: (value) => isPlausibleSecret(value.slice(6)),
  examples: () => ({
    positive: [
      `SCALINGO_API_TOKEN=${token(1)}`,
      `{"token": "${token(2)}"}`,
      `export SCALINGO_API_TOKEN='${token(5)}'`,
    ],
    negative: [
      `tk-us-${"x".repeat(48)}`, // placeholder: one repeated character
      token(3).slice(0, -1), // truncated: 47 characters
      `stk-us-${randomChars(48, 4)}`, // prefix glued to the end of a longer word
    ],
  }),
};
export default rule;
