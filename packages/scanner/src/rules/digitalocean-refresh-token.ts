import { ALPHABETS, randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";
import { tokenExamples } from "../rule-helpers/token-examples.js";

/**
 * DigitalOcean OAuth refresh token: `dor_v1_` + 64 lowercase hex.
 * Format: DigitalOcean docs, "OAuth Web Application Flow" (https://docs.digitalocean.com/reference/api/oauth/); gitleaks rule
 * `digitalocean-refresh-token`.
 */
const token = (seed: number): string => `dor_v1_${randomChars(64, seed, ALPHABETS.hex)}`;

const rule: Rule = {
  id: "digitalocean-refresh-token",
  label: "DigitalOcean OAuth refresh token",
  prefixes: ["dor_v1_"],
  pattern: /dor_v1_[a-f0-9]{64}/y,
  validate: (value) => isPlausibleSecret(value.slice(7)),
  examples: () =>
    tokenExamples(token, "DIGITALOCEAN_REFRESH_TOKEN", [
      `dor_v1_0000000000000000000000000000000000000000000000000000000000000000`, // placeholder: one repeated character
      token(3).slice(0, -1), // truncated: one character short
      // and the token glued to the end of a longer word (added by tokenExamples)
    ]),
};
export default rule;
