import { ALPHABETS, randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";
import { tokenExamples } from "../rule-helpers/token-examples.js";

/**
 * PlanetScale OAuth access token: `pscale_oauth_` + 32 to 64 characters of `[A-Za-z0-9_=.-]`.
 * Format: PlanetScale docs, "OAuth applications" (https://planetscale.com/docs/concepts/oauth); gitleaks rule
 * `planetscale-oauth-token`.
 */
const token = (seed: number): string => `pscale_oauth_${randomChars(43, seed, ALPHABETS.base64url)}`;

const rule: Rule = {
  id: "planetscale-oauth-token",
  label: "PlanetScale OAuth token",
  prefixes: ["pscale_oauth_"],
  pattern: /pscale_oauth_[A-Za-z0-9_=.-]{32,64}/y,
  validate: (value) => isPlausibleSecret(value.slice(13)),
  examples: () =>
    tokenExamples(token, "PLANETSCALE_OAUTH_TOKEN", [
      `pscale_oauth_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX`, // placeholder: one repeated character
      `pscale_oauth_${randomChars(31, 3)}`, // truncated: 31 characters, below the minimum of 32
      // and the token glued to the end of a longer word (added by tokenExamples)
    ]),
};
export default rule;
