import { randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";
import { tokenExamples } from "../rule-helpers/token-examples.js";

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
  pattern: /pnu_[A-Za-z0-9]{36}/y,
  validate: (value) => isPlausibleSecret(value.slice(4)),
  examples: () =>
    tokenExamples(token, "PREFECT_API_KEY", [
      `pnu_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX`, // placeholder: one repeated character
      token(3).slice(0, -1), // truncated: one character short
      // and the token glued to the end of a longer word (added by tokenExamples)
    ]),
};
export default rule;
