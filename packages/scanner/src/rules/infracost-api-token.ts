import { randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";
import { tokenExamples } from "../rule-helpers/token-examples.js";

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
  pattern: /ico-[A-Za-z0-9]{32}/y,
  validate: (value) => isPlausibleSecret(value.slice(4)),
  examples: () =>
    tokenExamples(token, "INFRACOST_API_KEY", [
      `ico-XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX`, // placeholder: one repeated character
      token(3).slice(0, -1), // truncated: one character short
      // and the token glued to the end of a longer word (added by tokenExamples)
    ]),
};
export default rule;
