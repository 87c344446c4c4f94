import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * Slack user token: `xoxp-` (or `xoxe-` for rotating tokens) + three digit ids + a 32-character
 * secret (hex in practice, base62 allowed). Slack API docs, "Token types"
 * (https://api.slack.com/concepts/token-types); gitleaks `slack-user-token`.
 */
const rule: Rule = {
  id: "slack-user-token",
  label: "Slack user token",
  prefixes: ["xoxp-", "xoxe-"],
  pattern: /xox[pe](?:-\d{8,14}){3}-(?<body>[A-Za-z0-9]{28,34})/y,
  validate: (v) => looksRandom(v),
  examples: () => ({
    positive: [
      `user_token: xoxp-${randomChars(11, 31, ALPHABETS.digits)}-${randomChars(10, 32, ALPHABETS.digits)}-${randomChars(11, 33, ALPHABETS.digits)}-${randomChars(32, 34, ALPHABETS.hex)}`,
      `?t=xoxe-${randomChars(13, 35, ALPHABETS.digits)}-${randomChars(13, 36, ALPHABETS.digits)}-${randomChars(13, 37, ALPHABETS.digits)}-${randomChars(32, 38, ALPHABETS.hex)}`,
    ],
    negative: [
      '"token2": "xoxp-XXXXXXXXXX-XXXXXXXXXX-XXXXXXXXXXX-XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX"', // placeholder
      `"token4": "xoxp-${randomChars(12, 39, ALPHABETS.digits)}-${randomChars(12, 40, ALPHABETS.digits)}-${randomChars(12, 41, ALPHABETS.digits)}-${"#".repeat(20)}"`, // masked secret
      `xoxp-${randomChars(11, 42, ALPHABETS.digits)}-${randomChars(10, 43, ALPHABETS.digits)}-${randomChars(32, 44, ALPHABETS.hex)}`, // only two ids: truncated
    ],
  }),
};
export default rule;
