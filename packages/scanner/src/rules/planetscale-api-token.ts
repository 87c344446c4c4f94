import { ALPHABETS, randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";

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
  pattern: /(?<![A-Za-z0-9_.-])pscale_tkn_[A-Za-z0-9_=.-]{32,64}(?![A-Za-z0-9_=.-])/y,
  validate: (value) => isPlausibleSecret(value.slice(11)),
  examples: () => ({
    positive: [
      `PLANETSCALE_SERVICE_TOKEN=${token(1)}`,
      `{"token": "${token(2)}"}`,
      `export PLANETSCALE_SERVICE_TOKEN='${token(5)}'`,
    ],
    negative: [
      `pscale_tkn_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX`, // placeholder: one repeated character
      `pscale_tkn_${randomChars(31, 3)}`, // truncated: 31 characters, below the minimum of 32
      `x${token(4)}`, // prefix glued to the end of a longer word
    ],
  }),
};
export default rule;
