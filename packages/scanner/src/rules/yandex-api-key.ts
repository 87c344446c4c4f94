import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * Yandex Cloud API key: `AQVN` + 35 to 38 base64url characters. Yandex Cloud docs, "API key"
 * (https://yandex.cloud/en/docs/iam/concepts/authorization/api-key); gitleaks `yandex-api-key`.
 */
const rule: Rule = {
  id: "yandex-api-key",
  label: "Yandex Cloud API key",
  prefixes: ["AQVN"],
  pattern: /AQVN(?<body>[A-Za-z0-9_-]{35,38})/y,
  validate: (v) => looksRandom(v),
  examples: () => ({
    positive: [`YC_API_KEY=AQVN${randomChars(36, 881, ALPHABETS.base64url)}`, `Authorization: Api-Key AQVN${randomChars(37, 882, ALPHABETS.base64url)}`],
    negative: [
      `AQVN${"x".repeat(36)}`, // placeholder
      `AQVN${randomChars(20, 883, ALPHABETS.base64url)}`, // truncated
      `MIIB+AQVN${randomChars(36, 884, ALPHABETS.base64url)}`, // inside base64 data
    ],
  }),
};
export default rule;
