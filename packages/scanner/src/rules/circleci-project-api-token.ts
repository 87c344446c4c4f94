import { ALPHABETS, randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";
import { tokenExamples } from "../rule-helpers/token-examples.js";

/**
 * CircleCI project API token: `CCIPRJ_` + 22 alphanumerics + `_` + 40 lowercase hex.
 * Format: CircleCI docs, "Managing API tokens" (https://circleci.com/docs/managing-api-tokens/).
 */
const token = (seed: number): string => `CCIPRJ_${randomChars(22, seed)}_${randomChars(40, seed + 1, ALPHABETS.hex)}`;

const rule: Rule = {
  id: "circleci-project-api-token",
  label: "CircleCI project API token",
  prefixes: ["CCIPRJ_"],
  pattern: /CCIPRJ_[A-Za-z0-9]{22}_[a-f0-9]{40}/y,
  validate: (value) => isPlausibleSecret(value.slice(30)),
  examples: () =>
    tokenExamples(token, "CIRCLECI_TOKEN", [
      `CCIPRJ_${"X".repeat(22)}_${"0".repeat(40)}`, // placeholder: one repeated character
      token(3).slice(0, -1), // truncated: one character short
      // and the token glued to the end of a longer word (added by tokenExamples)
    ]),
};
export default rule;
