import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * Slack legacy user/session tokens `xoxs-` and `xoxo-`: three digit ids + a hex secret. Format as in
 * gitleaks `slack-legacy-token` (Slack retired "legacy tokens", https://api.slack.com/legacy/custom-integrations/legacy-tokens).
 */
const rule: Rule = {
  id: "slack-legacy-token",
  label: "Slack legacy token",
  prefixes: ["xoxs-", "xoxo-"],
  pattern: /xox[os]-\d{1,14}-\d{1,14}-\d{1,14}-(?<body>[a-fA-F0-9]{10,64})/y,
  validate: (v) => looksRandom(v, 2.5),
  examples: () => ({
    positive: [
      `slack_token: xoxs-${randomChars(12, 81, ALPHABETS.digits)}-${randomChars(9, 82, ALPHABETS.digits)}-${randomChars(10, 83, ALPHABETS.digits)}-${randomChars(10, 84, ALPHABETS.hex)}`,
      `"access_token7": "xoxo-${randomChars(6, 85, ALPHABETS.digits)}-${randomChars(6, 86, ALPHABETS.digits)}-${randomChars(6, 87, ALPHABETS.digits)}-${randomChars(18, 88, ALPHABETS.hex)}"`,
    ],
    negative: [
      "https://indieweb.org/images/3/35/2018-250-xoxo-indieweb-1.jpg", // the word xoxo in a URL
      "EXO-XOXO-teaser-exo-k-34521098-720-516.jpg", // upper case, no token
      `xoxs-${randomChars(12, 89, ALPHABETS.digits)}-${randomChars(9, 90, ALPHABETS.digits)}-${"0".repeat(10)}`, // too few parts
    ],
  }),
};
export default rule;
