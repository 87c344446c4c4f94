import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * SettleMint application access token: `sm_aat_` + 16 characters of `[A-Za-z0-9]`. SettleMint docs, "Application access tokens" (https://console.settlemint.com/documentation/platform-components/security-and-authentication/application-access-tokens); gitleaks `settlemint-application-access-token`.
 */
const rule: Rule = {
  id: "settlemint-application-access-token",
  label: "SettleMint application access token",
  prefixes: ["sm_aat_"],
  pattern: /sm_aat_(?<body>[A-Za-z0-9]{16})/y,
  validate: (v) => looksRandom(v),
  examples: () => ({
    positive: [`KEY=sm_aat_${randomChars(16, 7071, ALPHABETS.base62)}`, `"token": "sm_aat_${randomChars(16, 7072, ALPHABETS.base62)}"`],
    negative: [
      `sm_aat_${"0".repeat(16)}`, // zeroed placeholder
      `sm_aat_${randomChars(16 - 6, 7073, ALPHABETS.base62)}`, // truncated
      `sm_aat_${randomChars(16 + 4, 7074, ALPHABETS.base62)}`, // too long: part of something else
      `wordsm_aat_${randomChars(16, 7075, ALPHABETS.base62)}`, // prefix glued inside a word
    ],
  }),
};
export default rule;
