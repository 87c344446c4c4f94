import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * Brevo (formerly Sendinblue) SMTP key: `xsmtpsib-` + 64 hex + `-` + 16 base62; it authenticates
 * the SMTP relay. Brevo help, "Create and manage your SMTP keys"
 * (https://help.brevo.com/hc/en-us/articles/7959631848850).
 */
const rule: Rule = {
  id: "sendinblue-smtp-key",
  label: "Brevo (Sendinblue) SMTP key",
  prefixes: ["xsmtpsib-"],
  pattern: /xsmtpsib-(?<body>[a-f0-9]{64}-[A-Za-z0-9]{16})/y,
  validate: (v) => looksRandom(v.slice(0, 64)),
  examples: () => ({
    positive: [
      `SMTP_PASSWORD=xsmtpsib-${randomChars(64, 161, ALPHABETS.hex)}-${randomChars(16, 162)}`,
      `pass: 'xsmtpsib-${randomChars(64, 163, ALPHABETS.hex)}-${randomChars(16, 164)}'`,
    ],
    negative: [
      `xsmtpsib-${"f".repeat(64)}-${randomChars(16, 165)}`, // placeholder run
      `xsmtpsib-${randomChars(40, 166, ALPHABETS.hex)}-${randomChars(16, 167)}`, // truncated
      "xsmtpsib-your-smtp-key", // placeholder
    ],
  }),
};
export default rule;
