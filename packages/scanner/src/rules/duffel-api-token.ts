import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * Duffel API access token: `duffel_live_` or `duffel_test_` + 43 base64url characters. Duffel docs,
 * "Authentication" (https://duffel.com/docs/api/overview/making-requests/authentication); gitleaks
 * `duffel-api-token`.
 */
const rule: Rule = {
  id: "duffel-api-token",
  label: "Duffel API token",
  prefixes: ["duffel_live_", "duffel_test_"],
  pattern: /duffel_(?:live|test)_(?<body>[A-Za-z0-9_=-]{43})/y,
  validate: (v) => looksRandom(v),
  examples: () => ({
    positive: [`DUFFEL_TOKEN=duffel_live_${randomChars(43, 261, ALPHABETS.base64url)}`, `"duffel_test_${randomChars(43, 262, ALPHABETS.base64url)}"`],
    negative: [
      `duffel_test_${"x".repeat(43)}`, // placeholder
      `duffel_live_${randomChars(30, 263, ALPHABETS.base64url)}`, // truncated
    ],
  }),
};
export default rule;
