import { ALPHABETS, randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";
import { tokenExamples } from "../rule-helpers/token-examples.js";

/**
 * Heroku API key, current format: `HRKU-AA` + 58 base64url characters.
 * Format: Heroku Dev Center, "Heroku API token format change" (https://devcenter.heroku.com/changelog-items/3026);
 * gitleaks rule `heroku-api-key-v2`.
 */
const token = (seed: number): string => `HRKU-AA${randomChars(58, seed, ALPHABETS.base64url)}`;

const rule: Rule = {
  id: "heroku-api-key-v2",
  label: "Heroku API key (HRKU-)",
  prefixes: ["HRKU-AA"],
  pattern: /HRKU-AA[A-Za-z0-9_-]{58}/y,
  validate: (value) => isPlausibleSecret(value.slice(7)),
  examples: () =>
    tokenExamples(token, "HEROKU_API_KEY", [
      `HRKU-AAXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX`, // placeholder: one repeated character
      token(3).slice(0, -1), // truncated: one character short
      // and the token glued to the end of a longer word (added by tokenExamples)
    ]),
};
export default rule;
