import { randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";

/**
 * Prefect Cloud API key: `pnu_` + 36 alphanumerics.
 * Format: Prefect docs, "Manage API keys" (https://docs.prefect.io/v3/manage/cloud/manage-users/api-keys);
 * gitleaks rule `prefect-api-token`.
 */
const token = (seed: number): string => `pnu_${randomChars(36, seed)}`;

const rule: Rule = {
  id: "prefect-api-token",
  label: "Prefect Cloud API key",
  prefixes: ["pnu_"],
  pattern: /(?<![A-Za-z0-9_])pnu_[A-Za-z0-9]{36}(?![A-Za-z0-9_])/y,
  validate: (value) => isPlausibleSecret(value.slice(4)),
  examples: () => ({
    positive: [
      `PREFECT_API_KEY=${token(1)}`,
      `{"token": "${token(2)}"}`,
      `export PREFECT_API_KEY='${token(5)}'`,
    ],
    negative: [
      `pnu_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX`, // placeholder: one repeated character
      token(3).slice(0, -1), // truncated: one character short
      `x${token(4)}`, // prefix glued to the end of a longer word
    ],
  }),
};
export default rule;
