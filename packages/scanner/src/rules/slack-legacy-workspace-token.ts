import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * Slack legacy workspace app tokens `xoxa-` (access) and `xoxr-` (refresh): optional version digit,
 * then dash-separated base62 groups (the first of at least 8 characters). Format as in gitleaks
 * `slack-legacy-workspace-token` (workspace apps were retired, https://api.slack.com/workspace-apps).
 */
const rule: Rule = {
  id: "slack-legacy-workspace-token",
  label: "Slack legacy workspace token",
  prefixes: ["xoxa-", "xoxr-"],
  pattern: /xox[ar]-(?:\d-)?(?<body>[0-9A-Za-z]{8,48}(?:-[0-9A-Za-z]{8,48}){0,4})/y,
  // The last group carries the randomness (ids before it may be synthetic-looking digit runs).
  validate: (v) => /\d/.test(v) && looksRandom(v.slice(v.lastIndexOf("-") + 1), 2.5),
  examples: () => ({
    positive: [
      `slack_token: xoxa-2-${randomChars(9, 91, ALPHABETS.digits)}-${randomChars(11, 92, ALPHABETS.digits)}-${randomChars(13, 93, ALPHABETS.digits)}-${randomChars(18, 94, ALPHABETS.hex)}`,
      `token="xoxr-${randomChars(11, 95, ALPHABETS.digits)}-${randomChars(13, 96, ALPHABETS.digits)}"`,
    ],
    negative: [
      "https://github.com/xoxa-nyc/xoxa-nyc.github.io", // the word xoxa in a URL
      "xoxa-xxxxxxxxxxxxxxxx", // placeholder
      `myxoxa-${randomChars(11, 97, ALPHABETS.digits)}-${randomChars(13, 98, ALPHABETS.digits)}`, // prefix glued inside a word
    ],
  }),
};
export default rule;
