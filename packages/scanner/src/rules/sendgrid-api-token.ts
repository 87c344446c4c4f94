import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * SendGrid API key: `SG.` + 22-character key id + `.` + 43-character secret (base64url). Twilio
 * SendGrid docs, "API Keys" (https://www.twilio.com/docs/sendgrid/ui/account-and-settings/api-keys);
 * gitleaks `sendgrid-api-token`.
 */
const rule: Rule = {
  id: "sendgrid-api-token",
  label: "SendGrid API key",
  prefixes: ["SG."],
  pattern: /SG\.[A-Za-z0-9_-]{22}\.(?<body>[A-Za-z0-9_-]{43})/y,
  validate: (v) => looksRandom(v),
  examples: () => ({
    positive: [
      `SENDGRID_API_KEY=SG.${randomChars(22, 141, ALPHABETS.base64url)}.${randomChars(43, 142, ALPHABETS.base64url)}`,
      `sg.setApiKey("SG.${randomChars(22, 143, ALPHABETS.base64url)}.${randomChars(43, 144, ALPHABETS.base64url)}")`,
    ],
    negative: [
      `SG.${"x".repeat(22)}.${"x".repeat(43)}`, // placeholder
      `SG.${randomChars(22, 145, ALPHABETS.base64url)}.${randomChars(30, 146, ALPHABETS.base64url)}`, // truncated
      `notSG.${randomChars(22, 147, ALPHABETS.base64url)}.${randomChars(43, 148, ALPHABETS.base64url)}`, // prefix glued inside a word
    ],
  }),
};
export default rule;
