import { randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { hasMixedCase, looksRandom } from "../rule-helpers/entropy.js";

/**
 * Mailchimp Transactional (Mandrill) API key: `md-` + 22 base62 characters. Mailchimp developer
 * docs, "Transactional API: authentication" (https://mailchimp.com/developer/transactional/guides/quick-start/).
 * The prefix is short, so the value must also look random: mixed case and high entropy.
 */
const rule: Rule = {
  id: "mailchimp-transactional-api-key",
  label: "Mailchimp Transactional (Mandrill) API key",
  prefixes: ["md-"],
  pattern: /md-(?<body>[A-Za-z0-9]{22})/y,
  validate: (v) => hasMixedCase(v, 3) && /\d/.test(v) && looksRandom(v, 3.5),
  examples: () => ({
    positive: [`MANDRILL_API_KEY=md-${randomChars(22, 181)}`, `mailchimp.setApiKey("md-${randomChars(22, 182)}")`],
    negative: [
      "md-elevation-z8-onhoverfocus", // CSS class (lower case, too long)
      "md-YOURAPIKEYGOESHERE123", // placeholder
      `class="md-${randomChars(22, 183).toLowerCase()}"`, // lower-case only
    ],
  }),
};
export default rule;
