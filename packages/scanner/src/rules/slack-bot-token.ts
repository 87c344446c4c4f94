import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * Slack bot user token: `xoxb-` + workspace id (digits) + `-` + bot user id (digits) + `-` +
 * random base62 secret (24 characters today). Slack API docs, "Token types"
 * (https://api.slack.com/concepts/token-types). The two-part legacy form is `slack-legacy-bot-token`.
 */
const rule: Rule = {
  id: "slack-bot-token",
  label: "Slack bot token",
  prefixes: ["xoxb-"],
  pattern: /xoxb-\d{8,14}-\d{8,14}-(?<body>[A-Za-z0-9]{18,40})/y,
  validate: (v) => looksRandom(v),
  examples: () => ({
    positive: [
      `SLACK_BOT_TOKEN=xoxb-${randomChars(12, 1, ALPHABETS.digits)}-${randomChars(13, 2, ALPHABETS.digits)}-${randomChars(24, 3)}`,
      `"bot_token": "xoxb-${randomChars(11, 4, ALPHABETS.digits)}-${randomChars(12, 5, ALPHABETS.digits)}-${randomChars(24, 6)}"`,
    ],
    negative: [
      "xoxb-xxxxxxxxx-xxxxxxxxxx-xxxxxxxxxxxx", // placeholder: no digits, x-run
      `xoxb-${randomChars(12, 7, ALPHABETS.digits)}-${randomChars(13, 8, ALPHABETS.digits)}-${"A".repeat(24)}`, // secret is one repeated letter
      `xoxb-${randomChars(12, 9, ALPHABETS.digits)}-${randomChars(13, 10, ALPHABETS.digits)}-${randomChars(10, 11)}`, // truncated secret
      `myxoxb-${randomChars(12, 12, ALPHABETS.digits)}-${randomChars(13, 13, ALPHABETS.digits)}-${randomChars(24, 14)}`, // prefix glued inside a word
    ],
  }),
};
export default rule;
