import { ALPHABETS, randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";
import { tokenExamples } from "../rule-helpers/token-examples.js";

/**
 * PlanetScale database branch password: `pscale_pw_` + 32 to 64 characters of `[A-Za-z0-9_=.-]`.
 * Format: PlanetScale docs, "Connection strings" (https://planetscale.com/docs/concepts/connection-strings);
 * gitleaks rule `planetscale-password`.
 */
const token = (seed: number): string => `pscale_pw_${randomChars(43, seed, ALPHABETS.base64url)}`;

const rule: Rule = {
  id: "planetscale-password",
  label: "PlanetScale database password",
  prefixes: ["pscale_pw_"],
  pattern: /pscale_pw_[A-Za-z0-9_=.-]{32,64}/y,
  validate: (value) => isPlausibleSecret(value.slice(10)),
  examples: () =>
    tokenExamples(token, "DATABASE_PASSWORD", [
      `pscale_pw_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX`, // placeholder: one repeated character
      `pscale_pw_${randomChars(31, 3)}`, // truncated: 31 characters, below the minimum of 32
      // and the token glued to the end of a longer word (added by tokenExamples)
    ]),
};
export default rule;
