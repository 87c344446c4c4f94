import { randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * Slack app configuration refresh token: `xoxe-` + digit + `-` + about 146 base62 characters.
 * Slack API docs, "App configuration tokens" (https://api.slack.com/authentication/config-tokens);
 * gitleaks `slack-config-refresh-token`.
 */
const rule: Rule = {
  id: "slack-config-refresh-token",
  label: "Slack configuration refresh token",
  prefixes: ["xoxe-"],
  pattern: /xoxe-\d-(?<body>[A-Za-z0-9]{140,160})/y,
  validate: (v) => looksRandom(v),
  examples: () => ({
    positive: [`refresh_token: xoxe-1-${randomChars(146, 71)}`, `"refresh_token1": "xoxe-1-${randomChars(146, 72)}"`],
    negative: [
      "xoxe-1-xxx", // placeholder, too short
      "XOxE-RROAmw, Home and Garden", // different case, prose
      `xoxe-1-${randomChars(60, 73)}`, // truncated
    ],
  }),
};
export default rule;
