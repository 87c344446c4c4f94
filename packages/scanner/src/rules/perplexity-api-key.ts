import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * Perplexity API key: `pplx-` + 48 characters of `[A-Za-z0-9]`. Perplexity docs, "Getting started" (https://docs.perplexity.ai/guides/getting-started); gitleaks `perplexity-api-key`.
 */
const rule: Rule = {
  id: "perplexity-api-key",
  label: "Perplexity API key",
  prefixes: ["pplx-"],
  pattern: /pplx-(?<body>[A-Za-z0-9]{48})/y,
  validate: (v) => looksRandom(v),
  examples: () => ({
    positive: [`API_KEY=pplx-${randomChars(48, 4031, ALPHABETS.base62)}`, `"token": "pplx-${randomChars(48, 4032, ALPHABETS.base62)}"`],
    negative: [
      `pplx-${"x".repeat(48)}`, // placeholder
      `pplx-${randomChars(48 - 8, 4033, ALPHABETS.base62)}`, // truncated
      `pplx-${randomChars(48 + 4, 4034, ALPHABETS.base62)}`, // too long: part of something else
      `wordpplx-${randomChars(48, 4035, ALPHABETS.base62)}`, // prefix glued inside a word
    ],
  }),
};
export default rule;
