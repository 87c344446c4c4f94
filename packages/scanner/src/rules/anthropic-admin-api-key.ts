import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * Anthropic Admin API key: `sk-ant-admin01-` + 93 base64url characters + `AA` (108 characters in all). Anthropic docs,
 * "Admin API keys" (https://docs.anthropic.com/en/api/overview#authentication); gitleaks `anthropic-admin-api-key`.
 */
const rule: Rule = {
  id: "anthropic-admin-api-key",
  label: "Anthropic Admin API key",
  prefixes: ["sk-ant-admin01-"],
  pattern: /sk-ant-admin01-(?<body>[A-Za-z0-9_-]{93}AA)/y,
  validate: (v) => looksRandom(v),
  examples: () => ({
    positive: [
      `ANTHROPIC_API_KEY=sk-ant-admin01-${randomChars(93, 2991, ALPHABETS.base64url)}AA`,
      `client = Anthropic(api_key="sk-ant-admin01-${randomChars(93, 2992, ALPHABETS.base64url)}AA")`,
    ],
    negative: [
      `sk-ant-admin01-${randomChars(93, 2993, ALPHABETS.base64url)}BB`, // wrong suffix
      `sk-ant-admin01-${randomChars(60, 2994, ALPHABETS.base64url)}AA`, // truncated
      `ssk-ant-admin01-${randomChars(93, 2995, ALPHABETS.base64url)}AA`, // prefix glued inside a word
      "sk-ant-admin01-NotARealKeyButLooksLikeOne", // placeholder
    ],
  }),
};
export default rule;
