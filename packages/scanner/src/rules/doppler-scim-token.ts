import { randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";
import { tokenExamples } from "../rule-helpers/token-examples.js";

/**
 * Doppler SCIM token: `dp.scim.` + 40 to 44 alphanumerics.
 * Format: Doppler docs, "Token formats" (https://docs.doppler.com/reference/auth-token-formats).
 */
const token = (seed: number): string => `dp.scim.${randomChars(43, seed)}`;

const rule: Rule = {
  id: "doppler-scim-token",
  label: "Doppler SCIM token",
  prefixes: ["dp.scim."],
  pattern: /dp\.scim\.[A-Za-z0-9]{40,44}/y,
  validate: (value) => isPlausibleSecret(value.slice(8)),
  examples: () =>
    tokenExamples(token, "DOPPLER_TOKEN", [
      `dp.scim.XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX`, // placeholder: one repeated character
      `dp.scim.${randomChars(39, 3)}`, // truncated: 39 characters, below the minimum of 40
      // and the token glued to the end of a longer word (added by tokenExamples)
    ]),
};
export default rule;
