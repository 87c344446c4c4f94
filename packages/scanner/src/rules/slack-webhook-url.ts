import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * Slack incoming webhook and workflow webhook URLs: `hooks.slack.com/services/T…/B…/<secret>` and
 * `hooks.slack.com/workflows|triggers/T…/A…/<digits>/<secret>`; anyone holding the URL can post.
 * Slack API docs, "Sending messages using incoming webhooks"
 * (https://api.slack.com/messaging/webhooks); gitleaks `slack-webhook-url`.
 */
const rule: Rule = {
  id: "slack-webhook-url",
  label: "Slack webhook URL",
  prefixes: ["hooks.slack.com/"],
  pattern:
    /hooks\.slack\.com\/(?:services\/T[A-Z0-9]{6,12}\/B[A-Z0-9]{6,12}|(?:workflows|triggers)\/T[A-Z0-9]{6,12}\/A[A-Z0-9]{6,12}\/\d{6,24})\/(?<body>[A-Za-z0-9]{20,34})/y,
  validate: (v) => looksRandom(v),
  examples: () => ({
    positive: [
      `SLACK_WEBHOOK=https://hooks.slack.com/services/T${randomChars(8, 101, ALPHABETS.upperAlnum)}/B${randomChars(8, 102, ALPHABETS.upperAlnum)}/${randomChars(24, 103)}`,
      `http://hooks.slack.com/workflows/T${randomChars(10, 104, ALPHABETS.upperAlnum)}/A${randomChars(10, 105, ALPHABETS.upperAlnum)}/${randomChars(18, 106, ALPHABETS.digits)}/${randomChars(24, 107)}`,
    ],
    negative: [
      "https://hooks.slack.com/services/TXXXXX/BXXXXX/XXXXXXXXXX", // documentation placeholder
      "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX", // Slack docs placeholder
      `https://hooks.slack.com/services/T${randomChars(8, 108, ALPHABETS.upperAlnum)}/B${randomChars(8, 109, ALPHABETS.upperAlnum)}`, // no secret part
    ],
  }),
};
export default rule;
