import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * Linear OAuth access token: `lin_oauth_` + 64 characters of `[a-f0-9]`. Linear developers, "OAuth 2.0 authentication" (https://linear.app/developers/oauth-2-0-authentication).
 */
const rule: Rule = {
  id: "linear-oauth-token",
  label: "Linear OAuth access token",
  prefixes: ["lin_oauth_"],
  pattern: /lin_oauth_(?<body>[a-f0-9]{64})/y,
  validate: (v) => looksRandom(v),
  examples: () => ({
    positive: [`KEY=lin_oauth_${randomChars(64, 7011, ALPHABETS.hex)}`, `"token": "lin_oauth_${randomChars(64, 7012, ALPHABETS.hex)}"`],
    negative: [
      `lin_oauth_${"0".repeat(64)}`, // zeroed placeholder
      `lin_oauth_${randomChars(64 - 6, 7013, ALPHABETS.hex)}`, // truncated
      `lin_oauth_${randomChars(64 + 4, 7014, ALPHABETS.hex)}`, // too long: part of something else
      `wordlin_oauth_${randomChars(64, 7015, ALPHABETS.hex)}`, // prefix glued inside a word
    ],
  }),
};
export default rule;
