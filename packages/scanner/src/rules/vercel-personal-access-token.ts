import { randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";

/**
 * Vercel personal access token: `vcp_` + 24 to 60 alphanumerics.
 * Format: Vercel changelog, "Vercel tokens now have identifiable prefixes" (2025,
 * https://vercel.com/changelog) and Vercel docs, "Access tokens"; secretlint rule `@secretlint/secretlint-rule-vercel`.
 */
const token = (seed: number): string => `vcp_${randomChars(56, seed)}`;

const rule: Rule = {
  id: "vercel-personal-access-token",
  label: "Vercel personal access token",
  prefixes: ["vcp_"],
  pattern: /(?<![A-Za-z0-9_])vcp_[A-Za-z0-9]{24,60}(?![A-Za-z0-9_])/y,
  validate: (value) => isPlausibleSecret(value.slice(4)),
  examples: () => ({
    positive: [
      `VERCEL_TOKEN=${token(1)}`,
      `{"token": "${token(2)}"}`,
      `export VERCEL_TOKEN='${token(5)}'`,
    ],
    negative: [
      `vcp_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX`, // placeholder: one repeated character
      `vcp_${randomChars(23, 3)}`, // truncated: 23 characters, below the minimum of 24
      `x${token(4)}`, // prefix glued to the end of a longer word
    ],
  }),
};
export default rule;
