import { randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";

/**
 * Infracost API key: `ico-` + 32 alphanumerics.
 * Format: Infracost docs, "Getting started" / `infracost auth login` (https://www.infracost.io/docs/);
 * gitleaks rule `infracost-api-token`.
 */
const token = (seed: number): string => `ico-${randomChars(32, seed)}`;

const rule: Rule = {
  id: "infracost-api-token",
  label: "Infracost API key",
  prefixes: ["ico-"],
  pattern: /(?<![A-Za-z0-9_./-])ico-[A-Za-z0-9]{32}(?![A-Za-z0-9_])/y,
  validate: (value) => isPlausibleSecret(value.slice(4)),
  examples: () => ({
    positive: [
      `INFRACOST_API_KEY=${token(1)}`,
      `{"token": "${token(2)}"}`,
      `export INFRACOST_API_KEY='${token(5)}'`,
    ],
    negative: [
      `ico-XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX`, // placeholder: one repeated character
      token(3).slice(0, -1), // truncated: one character short
      `x${token(4)}`, // prefix glued to the end of a longer word
    ],
  }),
};
export default rule;
