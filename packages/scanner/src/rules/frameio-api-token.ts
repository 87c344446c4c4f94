import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * Frame.io developer token: `fio-u-` + 64 characters of `[A-Za-z0-9_-]`. Frame.io developer docs, "Developer tokens" (https://developer.frame.io/docs/getting-started/authentication); gitleaks `frameio-api-token`.
 */
const rule: Rule = {
  id: "frameio-api-token",
  label: "Frame.io developer token",
  prefixes: ["fio-u-"],
  pattern: /fio-u-(?<body>[A-Za-z0-9_-]{64})/y,
  validate: (v) => looksRandom(v),
  examples: () => ({
    positive: [`KEY=fio-u-${randomChars(64, 7031, ALPHABETS.base64url)}`, `"token": "fio-u-${randomChars(64, 7032, ALPHABETS.base64url)}"`],
    negative: [
      `fio-u-${"0".repeat(64)}`, // zeroed placeholder
      `fio-u-${randomChars(64 - 6, 7033, ALPHABETS.base64url)}`, // truncated
      `fio-u-${randomChars(64 + 4, 7034, ALPHABETS.base64url)}`, // too long: part of something else
      `wordfio-u-${randomChars(64, 7035, ALPHABETS.base64url)}`, // prefix glued inside a word
    ],
  }),
};
export default rule;
