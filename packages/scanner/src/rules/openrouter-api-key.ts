import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * OpenRouter API key: `sk-or-v1-` + 64 characters of `[a-f0-9]`. OpenRouter docs, "Authentication" (https://openrouter.ai/docs/api-reference/authentication).
 */
const rule: Rule = {
  id: "openrouter-api-key",
  label: "OpenRouter API key",
  prefixes: ["sk-or-v1-"],
  pattern: /sk-or-v1-(?<body>[a-f0-9]{64})/y,
  validate: (v) => looksRandom(v),
  examples: () => ({
    positive: [`API_KEY=sk-or-v1-${randomChars(64, 4051, ALPHABETS.hex)}`, `"token": "sk-or-v1-${randomChars(64, 4052, ALPHABETS.hex)}"`],
    negative: [
      `sk-or-v1-${"x".repeat(64)}`, // placeholder
      `sk-or-v1-${randomChars(64 - 8, 4053, ALPHABETS.hex)}`, // truncated
      `sk-or-v1-${randomChars(64 + 4, 4054, ALPHABETS.hex)}`, // too long: part of something else
      `wordsk-or-v1-${randomChars(64, 4055, ALPHABETS.hex)}`, // prefix glued inside a word
    ],
  }),
};
export default rule;
