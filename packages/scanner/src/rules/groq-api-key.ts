import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * Groq API key: `gsk_` + 52 characters of `[A-Za-z0-9]`. Groq docs, "API keys" (https://console.groq.com/docs/quickstart); secretlint `groq` rule.
 */
const rule: Rule = {
  id: "groq-api-key",
  label: "Groq API key",
  prefixes: ["gsk_"],
  pattern: /gsk_(?<body>[A-Za-z0-9]{52})/y,
  validate: (v) => looksRandom(v),
  examples: () => ({
    positive: [`API_KEY=gsk_${randomChars(52, 4021, ALPHABETS.base62)}`, `"token": "gsk_${randomChars(52, 4022, ALPHABETS.base62)}"`],
    negative: [
      `gsk_${"x".repeat(52)}`, // placeholder
      `gsk_${randomChars(52 - 8, 4023, ALPHABETS.base62)}`, // truncated
      `gsk_${randomChars(52 + 4, 4024, ALPHABETS.base62)}`, // too long: part of something else
      `wordgsk_${randomChars(52, 4025, ALPHABETS.base62)}`, // prefix glued inside a word
    ],
  }),
};
export default rule;
