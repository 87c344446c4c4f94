import { ALPHABETS, randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";
import { tokenExamples } from "../rule-helpers/token-examples.js";

/**
 * CircleCI personal API token: `CCIPAT_` + 22 alphanumerics + `_` + 40 lowercase hex.
 * Format: CircleCI docs, "Managing API tokens" (https://circleci.com/docs/managing-api-tokens/); GitHub secret
 * scanning partner pattern `circleci_personal_access_token`.
 */
const token = (seed: number): string => `CCIPAT_${randomChars(22, seed)}_${randomChars(40, seed + 1, ALPHABETS.hex)}`;

const rule: Rule = {
  id: "circleci-personal-access-token",
  label: "CircleCI personal API token",
  prefixes: ["CCIPAT_"],
  pattern: /CCIPAT_[A-Za-z0-9]{22}_[a-f0-9]{40}/y,
  validate: (value) => isPlausibleSecret(value.slice(30)),
  examples: () =>
    tokenExamples(token, "CIRCLECI_TOKEN", [
      `CCIPAT_${"X".repeat(22)}_${"0".repeat(40)}`, // placeholder: one repeated character
      token(3).slice(0, -1), // truncated: one character short
      // and the token glued to the end of a longer word (added by tokenExamples)
    ]),
};
export default rule;
