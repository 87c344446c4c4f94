import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * ElevenLabs API key: `sk_` + 48 characters of `[a-f0-9]`. ElevenLabs docs, "Authentication" (https://elevenlabs.io/docs/api-reference/authentication); the long hex body keeps the short prefix distinct.
 */
const rule: Rule = {
  id: "elevenlabs-api-key",
  label: "ElevenLabs API key",
  prefixes: ["sk_"],
  pattern: /sk_(?<body>[a-f0-9]{48})/y,
  validate: (v) => looksRandom(v),
  examples: () => ({
    positive: [`API_KEY=sk_${randomChars(48, 4061, ALPHABETS.hex)}`, `"token": "sk_${randomChars(48, 4062, ALPHABETS.hex)}"`],
    negative: [
      `sk_${"x".repeat(48)}`, // placeholder
      `sk_${randomChars(48 - 8, 4063, ALPHABETS.hex)}`, // truncated
      `sk_${randomChars(48 + 4, 4064, ALPHABETS.hex)}`, // too long: part of something else
      `wordsk_${randomChars(48, 4065, ALPHABETS.hex)}`, // prefix glued inside a word
    ],
  }),
};
export default rule;
