import { ALPHABETS, randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";
import { tokenExamples } from "../rule-helpers/token-examples.js";

/**
 * PlanetScale service token: `pscale_tkn_` + 32 to 64 characters of `[A-Za-z0-9_=.-]`.
 * Format: PlanetScale docs, "Service tokens" (https://planetscale.com/docs/concepts/service-tokens);
 * gitleaks rule `planetscale-api-token`.
 */
const token = (seed: number): string => `pscale_tkn_${randomChars(43, seed, ALPHABETS.base64url)}`;

const rule: Rule = {
  id: "planetscale-api-token",
  label: "PlanetScale service token",
  prefixes: ["pscale_tkn_"],
  pattern: /pscale_tkn_[A-Za-z0-9_=.-]{32,64}/y,
  validate: (value) => isPlausibleSecret(value.slice(11)),
  examples: () =>
    tokenExamples(token, "PLANETSCALE_SERVICE_TOKEN", [
      `pscale_tkn_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX`, // placeholder: one repeated character
      `pscale_tkn_${randomChars(31, 3)}`, // truncated: 31 characters, below the minimum of 32
      // and the token glued to the end of a longer word (added by tokenExamples)
    ]),
};
export default rule;
