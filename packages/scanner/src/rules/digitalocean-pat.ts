import { ALPHABETS, randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";
import { tokenExamples } from "../rule-helpers/token-examples.js";

/**
 * DigitalOcean personal access token: `dop_v1_` + 64 lowercase hex.
 * Format: DigitalOcean docs, "How to Create a Personal Access Token" (https://docs.digitalocean.com/reference/api/create-personal-access-token/),
 * token prefixes announced 2023; gitleaks rule `digitalocean-pat`.
 */
const token = (seed: number): string => `dop_v1_${randomChars(64, seed, ALPHABETS.hex)}`;

const rule: Rule = {
  id: "digitalocean-pat",
  label: "DigitalOcean personal access token",
  prefixes: ["dop_v1_"],
  pattern: /dop_v1_[a-f0-9]{64}/y,
  validate: (value) => isPlausibleSecret(value.slice(7)),
  examples: () =>
    tokenExamples(token, "DIGITALOCEAN_TOKEN", [
      `dop_v1_0000000000000000000000000000000000000000000000000000000000000000`, // placeholder: one repeated character
      token(3).slice(0, -1), // truncated: one character short
      // and the token glued to the end of a longer word (added by tokenExamples)
    ]),
};
export default rule;
