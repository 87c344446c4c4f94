import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * xAI API key: `xai-` + 80 characters of `[A-Za-z0-9]`. xAI docs, "API keys" (https://docs.x.ai/docs/overview).
 */
const rule: Rule = {
  id: "xai-api-key",
  label: "xAI API key",
  prefixes: ["xai-"],
  pattern: /xai-(?<body>[A-Za-z0-9]{80})/y,
  validate: (v) => looksRandom(v),
  examples: () => ({
    positive: [`API_KEY=xai-${randomChars(80, 4041, ALPHABETS.base62)}`, `"token": "xai-${randomChars(80, 4042, ALPHABETS.base62)}"`],
    negative: [
      `xai-${"x".repeat(80)}`, // placeholder
      `xai-${randomChars(80 - 8, 4043, ALPHABETS.base62)}`, // truncated
      `xai-${randomChars(80 + 4, 4044, ALPHABETS.base62)}`, // too long: part of something else
      `wordxai-${randomChars(80, 4045, ALPHABETS.base62)}`, // prefix glued inside a word
    ],
  }),
};
export default rule;
