import { randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";
import { tokenExamples } from "../rule-helpers/token-examples.js";

/**
 * Vercel app access token: `vca_` + 24 to 60 alphanumerics.
 * Format: Vercel changelog, "Vercel tokens now have identifiable prefixes" (2025,
 * https://vercel.com/changelog) and Vercel docs, "Access tokens"; secretlint rule `@secretlint/secretlint-rule-vercel`.
 */
const token = (seed: number): string => `vca_${randomChars(56, seed)}`;

const rule: Rule = {
  id: "vercel-app-access-token",
  label: "Vercel app access token",
  prefixes: ["vca_"],
  pattern: /vca_[A-Za-z0-9]{24,60}/y,
  validate: (value) => isPlausibleSecret(value.slice(4)),
  examples: () =>
    tokenExamples(token, "VERCEL_TOKEN", [
      `vca_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX`, // placeholder: one repeated character
      `vca_${randomChars(23, 3)}`, // truncated: 23 characters, below the minimum of 24
      // and the token glued to the end of a longer word (added by tokenExamples)
    ]),
};
export default rule;
