import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * SettleMint personal access token: `sm_pat_` + 16 characters of `[A-Za-z0-9]`. SettleMint docs, "Personal access tokens" (https://console.settlemint.com/documentation/platform-components/security-and-authentication/personal-access-tokens); gitleaks `settlemint-personal-access-token`.
 */
const rule: Rule = {
  id: "settlemint-personal-access-token",
  label: "SettleMint personal access token",
  prefixes: ["sm_pat_"],
  pattern: /sm_pat_(?<body>[A-Za-z0-9]{16})/y,
  validate: (v) => looksRandom(v),
  examples: () => ({
    positive: [`KEY=sm_pat_${randomChars(16, 7061, ALPHABETS.base62)}`, `"token": "sm_pat_${randomChars(16, 7062, ALPHABETS.base62)}"`],
    negative: [
      `sm_pat_${"0".repeat(16)}`, // zeroed placeholder
      `sm_pat_${randomChars(16 - 6, 7063, ALPHABETS.base62)}`, // truncated
      `sm_pat_${randomChars(16 + 4, 7064, ALPHABETS.base62)}`, // too long: part of something else
      `wordsm_pat_${randomChars(16, 7065, ALPHABETS.base62)}`, // prefix glued inside a word
    ],
  }),
};
export default rule;
