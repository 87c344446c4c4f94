import { ALPHABETS, randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";
import { tokenExamples } from "../rule-helpers/token-examples.js";

/**
 * Buildkite user API access token: `bkua_` + 40 lowercase hex.
 * Format: Buildkite docs, "Managing API access tokens" (https://buildkite.com/docs/apis/managing-api-tokens).
 */
const token = (seed: number): string => `bkua_${randomChars(40, seed, ALPHABETS.hex)}`;

const rule: Rule = {
  id: "buildkite-user-access-token",
  label: "Buildkite API access token",
  prefixes: ["bkua_"],
  pattern: /bkua_[a-f0-9]{40}/y,
  validate: (value) => isPlausibleSecret(value.slice(5)),
  examples: () =>
    tokenExamples(token, "BUILDKITE_API_TOKEN", [
      `bkua_0000000000000000000000000000000000000000`, // placeholder: one repeated character
      token(3).slice(0, -1), // truncated: one character short
      // and the token glued to the end of a longer word (added by tokenExamples)
    ]),
};
export default rule;
