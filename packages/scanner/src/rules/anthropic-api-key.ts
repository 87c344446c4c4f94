import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * Anthropic API key: `sk-ant-api03-` + 93 base64url characters + `AA` (108 characters in all). Anthropic docs,
 * "API keys" (https://docs.anthropic.com/en/api/overview#authentication); gitleaks `anthropic-api-key`.
 */
const rule: Rule = {
  id: "anthropic-api-key",
  label: "Anthropic API key",
  prefixes: ["sk-ant-api03-"],
  pattern: /sk-ant-api03-(?<body>[A-Za-z0-9_-]{93}AA)/y,
  validate: (v) => looksRandom(v),
  examples: () => ({
    positive: [
      `ANTHROPIC_API_KEY=sk-ant-api03-${randomChars(93, 2211, ALPHABETS.base64url)}AA`,
      `client = Anthropic(api_key="sk-ant-api03-${randomChars(93, 2212, ALPHABETS.base64url)}AA")`,
    ],
    negative: [
      `sk-ant-api03-${randomChars(93, 2213, ALPHABETS.base64url)}BB`, // wrong suffix
      `sk-ant-api03-${randomChars(60, 2214, ALPHABETS.base64url)}AA`, // truncated
      `ssk-ant-api03-${randomChars(93, 2215, ALPHABETS.base64url)}AA`, // prefix glued inside a word
      "sk-ant-api03-NotARealKeyButLooksLikeOne", // placeholder
    ],
  }),
};
export default rule;
