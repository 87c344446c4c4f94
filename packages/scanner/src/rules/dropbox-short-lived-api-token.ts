import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * Dropbox short-lived OAuth access token: `sl.` (newer: `sl.u.`) + 130 to 1,400 base64url
 * characters. Dropbox developers, "OAuth guide" (https://developers.dropbox.com/oauth-guide);
 * gitleaks `dropbox-short-lived-api-token`. The length keeps the short prefix distinctive.
 */
const rule: Rule = {
  id: "dropbox-short-lived-api-token",
  label: "Dropbox short-lived access token",
  prefixes: ["sl."],
  pattern: /sl\.(?:u\.)?(?<body>[A-Za-z0-9_=-]{130,1400})/y,
  validate: (v) => looksRandom(v),
  examples: () => ({
    positive: [`DROPBOX_TOKEN=sl.${randomChars(136, 781, ALPHABETS.base64url)}`, `"access_token": "sl.u.${randomChars(400, 782, ALPHABETS.base64url)}"`],
    negative: [
      `sl.${randomChars(40, 783, ALPHABETS.base64url)}`, // too short
      `ssl.${randomChars(136, 784, ALPHABETS.base64url)}`, // prefix glued inside a word
      `sl.${"A".repeat(136)}`, // placeholder
    ],
  }),
};
export default rule;
