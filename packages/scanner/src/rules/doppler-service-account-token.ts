import { randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";
import { tokenExamples } from "../rule-helpers/token-examples.js";

/**
 * Doppler service account token: `dp.sa.` + 40 to 44 alphanumerics.
 * Format: Doppler docs, "Token formats" (https://docs.doppler.com/reference/auth-token-formats).
 */
const token = (seed: number): string => `dp.sa.${randomChars(43, seed)}`;

const rule: Rule = {
  id: "doppler-service-account-token",
  label: "Doppler service account token",
  prefixes: ["dp.sa."],
  pattern: /dp\.sa\.[A-Za-z0-9]{40,44}/y,
  validate: (value) => isPlausibleSecret(value.slice(6)),
  examples: () =>
    tokenExamples(token, "DOPPLER_TOKEN", [
      `dp.sa.XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX`, // placeholder: one repeated character
      `dp.sa.${randomChars(39, 3)}`, // truncated: 39 characters, below the minimum of 40
      // and the token glued to the end of a longer word (added by tokenExamples)
    ]),
};
export default rule;
