import { ALPHABETS, randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";
import { tokenExamples } from "../rule-helpers/token-examples.js";

/**
 * RubyGems.org API key: `rubygems_` + 48 lowercase hex.
 * Format: RubyGems guides, "API key scopes" (https://guides.rubygems.org/api-key-scopes/); gitleaks rule `rubygems-api-token`.
 */
const token = (seed: number): string => `rubygems_${randomChars(48, seed, ALPHABETS.hex)}`;

const rule: Rule = {
  id: "rubygems-api-token",
  label: "RubyGems API key",
  prefixes: ["rubygems_"],
  pattern: /rubygems_[a-f0-9]{48}/y,
  validate: (value) => isPlausibleSecret(value.slice(9)),
  examples: () =>
    tokenExamples(token, "GEM_HOST_API_KEY", [
      `rubygems_000000000000000000000000000000000000000000000000`, // placeholder: one repeated character
      token(3).slice(0, -1), // truncated: one character short
      // and the token glued to the end of a longer word (added by tokenExamples)
    ]),
};
export default rule;
