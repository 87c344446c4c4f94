import { ALPHABETS, randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";

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
  pattern: /(?<![A-Za-z0-9_.-])pscale_pw_[A-Za-z0-9_=.-]{32,64}(?![A-Za-z0-9_=.-])/y,
  validate: (value) => isPlausibleSecret(value.slice(10)),
  examples: () => ({
    positive: [
      `DATABASE_PASSWORD=${token(1)}`,
      `{"token": "${token(2)}"}`,
      `export DATABASE_PASSWORD='${token(5)}'`,
    ],
    negative: [
      `pscale_pw_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX`, // placeholder: one repeated character
      `pscale_pw_${randomChars(31, 3)}`, // truncated: 31 characters, below the minimum of 32
      `x${token(4)}`, // prefix glued to the end of a longer word
    ],
  }),
};
export default rule;
