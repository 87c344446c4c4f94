import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * ReadMe API key: `rdme_` + 70 characters of `[a-z0-9]`. ReadMe docs, "API keys" (https://docs.readme.com/main/reference/intro/authentication); gitleaks `readme-api-token`.
 */
const rule: Rule = {
  id: "readme-api-token",
  label: "ReadMe API key",
  prefixes: ["rdme_"],
  pattern: /rdme_(?<body>[a-z0-9]{70})/y,
  validate: (v) => looksRandom(v),
  examples: () => ({
    positive: [`KEY=rdme_${randomChars(70, 7041, ALPHABETS.lowerAlnum)}`, `"token": "rdme_${randomChars(70, 7042, ALPHABETS.lowerAlnum)}"`],
    negative: [
      `rdme_${"0".repeat(70)}`, // zeroed placeholder
      `rdme_${randomChars(70 - 6, 7043, ALPHABETS.lowerAlnum)}`, // truncated
      `rdme_${randomChars(70 + 4, 7044, ALPHABETS.lowerAlnum)}`, // too long: part of something else
      `wordrdme_${randomChars(70, 7045, ALPHABETS.lowerAlnum)}`, // prefix glued inside a word
    ],
  }),
};
export default rule;
