import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * Paddle Billing API key: `pdl_live_apikey_` or `pdl_sdbx_apikey_` + 26-character lower-case id +
 * `_` + 22 base62 + `_` + 3 base62 (checksum). Paddle developer docs, "API keys"
 * (https://developer.paddle.com/api-reference/about/api-keys).
 */
const rule: Rule = {
  id: "paddle-api-key",
  label: "Paddle API key",
  prefixes: ["pdl_live_apikey_", "pdl_sdbx_apikey_"],
  pattern: /pdl_(?:live|sdbx)_apikey_[a-z0-9]{26}_(?<body>[A-Za-z0-9]{22}_[A-Za-z0-9]{3})/y,
  validate: (v) => looksRandom(v.slice(0, 22)),
  examples: () => ({
    positive: [
      `PADDLE_API_KEY=pdl_live_apikey_${randomChars(26, 281, ALPHABETS.lowerAlnum)}_${randomChars(22, 282)}_${randomChars(3, 283)}`,
      `"pdl_sdbx_apikey_${randomChars(26, 284, ALPHABETS.lowerAlnum)}_${randomChars(22, 285)}_${randomChars(3, 286)}"`,
    ],
    negative: [
      `pdl_live_apikey_${randomChars(26, 287, ALPHABETS.lowerAlnum)}_${"x".repeat(22)}_abc`, // placeholder
      `pdl_live_apikey_${randomChars(26, 288, ALPHABETS.lowerAlnum)}`, // truncated
    ],
  }),
};
export default rule;
