import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * Replicate API token: `r8_` + 37 characters of `[A-Za-z0-9]`. Replicate docs, "Authentication" (https://replicate.com/docs/reference/http#authentication).
 */
const rule: Rule = {
  id: "replicate-api-token",
  label: "Replicate API token",
  prefixes: ["r8_"],
  pattern: /r8_(?<body>[A-Za-z0-9]{37})/y,
  validate: (v) => looksRandom(v),
  examples: () => ({
    positive: [`API_KEY=r8_${randomChars(37, 4011, ALPHABETS.base62)}`, `"token": "r8_${randomChars(37, 4012, ALPHABETS.base62)}"`],
    negative: [
      `r8_${"x".repeat(37)}`, // placeholder
      `r8_${randomChars(37 - 8, 4013, ALPHABETS.base62)}`, // truncated
      `r8_${randomChars(37 + 4, 4014, ALPHABETS.base62)}`, // too long: part of something else
      `wordr8_${randomChars(37, 4015, ALPHABETS.base62)}`, // prefix glued inside a word
    ],
  }),
};
export default rule;
