import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * Slack app-level token (Socket Mode): `xapp-` + version digit + `-` + app id (`A…`, upper-case
 * alphanumerics) + `-` + digits + `-` + 64 hex characters. Slack API docs, "App-level tokens"
 * (https://api.slack.com/authentication/token-types#app-level); gitleaks `slack-app-token`.
 */
const rule: Rule = {
  id: "slack-app-token",
  label: "Slack app-level token",
  prefixes: ["xapp-"],
  pattern: /xapp-\d-[A-Z0-9]{8,14}-\d{8,16}-(?<body>[A-Za-z0-9]{40,80})/y,
  validate: (v) => looksRandom(v),
  examples: () => ({
    positive: [
      `SLACK_APP_TOKEN=xapp-1-A${randomChars(10, 51, ALPHABETS.upperAlnum)}-${randomChars(13, 52, ALPHABETS.digits)}-${randomChars(64, 53, ALPHABETS.hex)}`,
      `"token": "xapp-1-A${randomChars(10, 54, ALPHABETS.upperAlnum)}-${randomChars(13, 55, ALPHABETS.digits)}-${randomChars(64, 56, ALPHABETS.hex)}"`,
    ],
    negative: [
      "xapp-1-XXXXXXXXXXX-XXXXXXXXXXXXX-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", // placeholder
      `xapp-1-A${randomChars(10, 57, ALPHABETS.upperAlnum)}-${randomChars(13, 58, ALPHABETS.digits)}-${randomChars(20, 59, ALPHABETS.hex)}`, // truncated secret
      "see xapp-1-your-app-token here", // prose
    ],
  }),
};
export default rule;
