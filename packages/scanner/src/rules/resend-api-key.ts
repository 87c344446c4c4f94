import { randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * Resend API key: `re_` + 8-character key id + `_` + 24-character secret (base62). Resend docs,
 * "API keys" (https://resend.com/docs/dashboard/api-keys/introduction).
 */
const rule: Rule = {
  id: "resend-api-key",
  label: "Resend API key",
  prefixes: ["re_"],
  pattern: /re_[A-Za-z0-9]{8}_(?<body>[A-Za-z0-9]{24})/y,
  validate: (v) => looksRandom(v),
  examples: () => ({
    positive: [`RESEND_API_KEY=re_${randomChars(8, 171)}_${randomChars(24, 172)}`, `new Resend("re_${randomChars(8, 173)}_${randomChars(24, 174)}")`],
    negative: [
      "re_123456789", // documentation placeholder
      "def re_compile_patterns_for_every_locale_now(): pass", // identifier with underscores
      `are_${randomChars(8, 175)}_${randomChars(24, 176)}`, // prefix glued inside a word
    ],
  }),
};
export default rule;
