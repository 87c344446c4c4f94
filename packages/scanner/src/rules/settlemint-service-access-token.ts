import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * SettleMint service access token: `sm_sat_` + 16 characters of `[A-Za-z0-9]`. SettleMint docs, "Service access tokens"; gitleaks `settlemint-service-access-token`.
 */
const rule: Rule = {
  id: "settlemint-service-access-token",
  label: "SettleMint service access token",
  prefixes: ["sm_sat_"],
  pattern: /sm_sat_(?<body>[A-Za-z0-9]{16})/y,
  validate: (v) => looksRandom(v),
  examples: () => ({
    positive: [`KEY=sm_sat_${randomChars(16, 7081, ALPHABETS.base62)}`, `"token": "sm_sat_${randomChars(16, 7082, ALPHABETS.base62)}"`],
    negative: [
      `sm_sat_${"0".repeat(16)}`, // zeroed placeholder
      `sm_sat_${randomChars(16 - 6, 7083, ALPHABETS.base62)}`, // truncated
      `sm_sat_${randomChars(16 + 4, 7084, ALPHABETS.base62)}`, // too long: part of something else
      `wordsm_sat_${randomChars(16, 7085, ALPHABETS.base62)}`, // prefix glued inside a word
    ],
  }),
};
export default rule;
