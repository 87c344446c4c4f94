import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * Brevo (formerly Sendinblue) API v3 key: `xkeysib-` + 64 hex + `-` + 16 base62. Brevo docs,
 * "Authentication" (https://developers.brevo.com/docs/getting-started); gitleaks `sendinblue-api-token`.
 */
const rule: Rule = {
  id: "sendinblue-api-token",
  label: "Brevo (Sendinblue) API key",
  prefixes: ["xkeysib-"],
  pattern: /xkeysib-(?<body>[a-f0-9]{64}-[A-Za-z0-9]{16})/y,
  validate: (v) => looksRandom(v.slice(0, 64)),
  examples: () => ({
    positive: [
      `BREVO_API_KEY=xkeysib-${randomChars(64, 151, ALPHABETS.hex)}-${randomChars(16, 152)}`,
      `api-key: "xkeysib-${randomChars(64, 153, ALPHABETS.hex)}-${randomChars(16, 154)}"`,
    ],
    negative: [
      `xkeysib-${"0".repeat(64)}-${randomChars(16, 155)}`, // zeroed placeholder
      `xkeysib-${randomChars(64, 156, ALPHABETS.hex)}`, // truncated (no suffix)
      "xkeysib-YOUR_API_KEY", // placeholder
    ],
  }),
};
export default rule;
