import { ALPHABETS, randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";
import { tokenExamples } from "../rule-helpers/token-examples.js";

/**
 * Clojars deploy token: `CLOJARS_` + 60 alphanumerics.
 * Format: Clojars wiki, "Deploy Tokens" (https://github.com/clojars/clojars-web/wiki/Deploy-Tokens); gitleaks
 * rule `clojars-api-token`.
 */
const token = (seed: number): string => `CLOJARS_${randomChars(60, seed, ALPHABETS.lowerAlnum)}`;

const rule: Rule = {
  id: "clojars-api-token",
  label: "Clojars deploy token",
  prefixes: ["CLOJARS_"],
  pattern: /CLOJARS_[a-zA-Z0-9]{60}/y,
  validate: (value) => isPlausibleSecret(value.slice(8)),
  examples: () =>
    tokenExamples(token, "CLOJARS_PASSWORD", [
      `CLOJARS_000000000000000000000000000000000000000000000000000000000000`, // placeholder: one repeated character
      token(3).slice(0, -1), // truncated: one character short
      // and the token glued to the end of a longer word (added by tokenExamples)
    ]),
};
export default rule;
