import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * New Relic Insights insert key: `NRII-` + 32 characters of `[A-Za-z0-9_-]`. New Relic docs, "Insights insert keys" (https://docs.newrelic.com/docs/apis/intro-apis/new-relic-api-keys/#insights-insert-key); gitleaks `new-relic-insert-key`.
 */
const rule: Rule = {
  id: "new-relic-insert-key",
  label: "New Relic Insights insert key",
  prefixes: ["NRII-"],
  pattern: /NRII-(?<body>[A-Za-z0-9_-]{32})/y,
  validate: (v) => looksRandom(v),
  examples: () => ({
    positive: [`KEY=NRII-${randomChars(32, 6031, ALPHABETS.base64url)}`, `"token": "NRII-${randomChars(32, 6032, ALPHABETS.base64url)}"`],
    negative: [
      `NRII-${"0".repeat(32)}`, // zeroed placeholder
      `NRII-${randomChars(32 - 6, 6033, ALPHABETS.base64url)}`, // truncated
      `NRII-${randomChars(32 + 4, 6034, ALPHABETS.base64url)}`, // too long: part of something else
      `wordNRII-${randomChars(32, 6035, ALPHABETS.base64url)}`, // prefix glued inside a word
    ],
  }),
};
export default rule;
