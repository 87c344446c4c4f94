import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * New Relic user API key: `NRAK-` + 27 characters of `[A-Z0-9]`. New Relic docs, "New Relic API keys" (https://docs.newrelic.com/docs/apis/intro-apis/new-relic-api-keys/); gitleaks `new-relic-user-api-key`.
 */
const rule: Rule = {
  id: "new-relic-user-api-key",
  label: "New Relic user API key",
  prefixes: ["NRAK-"],
  pattern: /NRAK-(?<body>[A-Z0-9]{27})/y,
  validate: (v) => looksRandom(v),
  examples: () => ({
    positive: [`KEY=NRAK-${randomChars(27, 6011, ALPHABETS.upperAlnum)}`, `"token": "NRAK-${randomChars(27, 6012, ALPHABETS.upperAlnum)}"`],
    negative: [
      `NRAK-${"0".repeat(27)}`, // zeroed placeholder
      `NRAK-${randomChars(27 - 6, 6013, ALPHABETS.upperAlnum)}`, // truncated
      `NRAK-${randomChars(27 + 4, 6014, ALPHABETS.upperAlnum)}`, // too long: part of something else
      `wordNRAK-${randomChars(27, 6015, ALPHABETS.upperAlnum)}`, // prefix glued inside a word
    ],
  }),
};
export default rule;
