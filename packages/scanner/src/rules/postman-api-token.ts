import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * Postman API key: `PMAK-` + 24 hex (key id) + `-` + 34 hex (secret). Postman docs, "Generate and
 * use Postman API keys" (https://learning.postman.com/docs/developer/postman-api/authentication/);
 * gitleaks `postman-api-token`.
 */
const rule: Rule = {
  id: "postman-api-token",
  label: "Postman API key",
  prefixes: ["PMAK-"],
  pattern: /PMAK-[a-fA-F0-9]{24}-(?<body>[a-fA-F0-9]{34})/y,
  validate: (v) => looksRandom(v),
  examples: () => ({
    positive: [
      `POSTMAN_API_KEY=PMAK-${randomChars(24, 741, ALPHABETS.hex)}-${randomChars(34, 742, ALPHABETS.hex)}`,
      `X-Api-Key: PMAK-${randomChars(24, 743, ALPHABETS.hex)}-${randomChars(34, 744, ALPHABETS.hex)}`,
    ],
    negative: [
      `PMAK-${randomChars(24, 745, ALPHABETS.hex)}-${"0".repeat(34)}`, // zeroed secret
      `PMAK-${randomChars(24, 746, ALPHABETS.hex)}`, // truncated
      "PMAK-your-postman-api-key", // placeholder
    ],
  }),
};
export default rule;
