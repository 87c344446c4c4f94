import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * Square OAuth application secret: `sq0csp-` + 43 base64url characters. Square developer docs,
 * "OAuth API: application secret" (https://developer.squareup.com/docs/oauth-api/overview); gitleaks
 * `square-secret` (not in their default config).
 */
const rule: Rule = {
  id: "square-secret",
  label: "Square OAuth application secret",
  prefixes: ["sq0csp-"],
  pattern: /sq0csp-(?<body>[A-Za-z0-9_-]{43})/y,
  validate: (v) => looksRandom(v),
  examples: () => ({
    positive: [`SQUARE_APP_SECRET=sq0csp-${randomChars(43, 221, ALPHABETS.base64url)}`, `"secret": "sq0csp-${randomChars(43, 222, ALPHABETS.base64url)}"`],
    negative: [
      `sq0csp-${"X".repeat(43)}`, // placeholder
      `sq0csp-${randomChars(30, 223, ALPHABETS.base64url)}`, // truncated
    ],
  }),
};
export default rule;
