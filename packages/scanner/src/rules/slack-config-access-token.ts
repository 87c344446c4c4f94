import { randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * Slack app configuration access token: `xoxe.xoxp-` or `xoxe.xoxb-` + digit + `-` + about 163
 * base62 characters. Slack API docs, "App configuration tokens"
 * (https://api.slack.com/authentication/config-tokens); gitleaks `slack-config-access-token`.
 */
const rule: Rule = {
  id: "slack-config-access-token",
  label: "Slack configuration access token",
  prefixes: ["xoxe.xoxp-", "xoxe.xoxb-"],
  pattern: /xoxe\.xox[bp]-\d-(?<body>[A-Za-z0-9]{150,180})/y,
  validate: (v) => looksRandom(v),
  examples: () => ({
    positive: [
      `access_token: xoxe.xoxp-1-${randomChars(163, 61)}`,
      `"access_token4": "xoxe.xoxb-1-${randomChars(166, 62)}"`,
    ],
    negative: [
      "xoxe.xoxp-1-SlackAppConfigurationAccessTokenHere", // placeholder, too short
      "xoxe.xoxp-1-RANDOMSTRINGHERE", // placeholder
      `xoxe.xoxp-1-${"x".repeat(163)}`, // placeholder run
    ],
  }),
};
export default rule;
