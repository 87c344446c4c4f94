import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * Slack legacy bot token (custom bot integrations, before the 3-part format): `xoxb-` + digits +
 * `-` + 18 to 26 base62 characters. Format as in gitleaks `slack-legacy-bot-token` and Slack's
 * legacy bot docs (https://api.slack.com/legacy/custom-integrations/bot-users).
 */
const rule: Rule = {
  id: "slack-legacy-bot-token",
  label: "Slack legacy bot token",
  prefixes: ["xoxb-"],
  pattern: /xoxb-\d{8,14}-(?<body>[A-Za-z0-9]{18,26})/y,
  // A run of digits only is the second id of a truncated 3-part token, not a secret.
  validate: (v) => !/^\d+$/.test(v) && looksRandom(v),
  examples: () => ({
    positive: [
      `slack_token: xoxb-${randomChars(12, 21, ALPHABETS.digits)}-${randomChars(24, 22)}`,
      `"bot_token": "xoxb-${randomChars(11, 23, ALPHABETS.digits)}-${randomChars(19, 24)}"`,
    ],
    negative: [
      "xoxb-xxxxxxxxxxx-xxxxxxxxxxxxxxxxxxxxxxxx", // placeholder
      "xoxb-Slack_BOT_TOKEN", // placeholder name
      `xoxb-${randomChars(12, 25, ALPHABETS.digits)}-${randomChars(12, 26)}`, // secret too short
      `prexoxb-${randomChars(12, 27, ALPHABETS.digits)}-${randomChars(24, 28)}`, // prefix glued inside a word
    ],
  }),
};
export default rule;
