import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * PayPal/Braintree gateway access token: `access_token$production$` (or `$sandbox$`) + 16-character
 * merchant id + `$` + 32 hex. Braintree docs, "Access tokens" for the PayPal SDK
 * (https://developer.paypal.com/braintree/docs/guides/paypal/server-side/).
 */
const rule: Rule = {
  id: "paypal-braintree-access-token",
  label: "PayPal Braintree access token",
  prefixes: ["access_token$production$", "access_token$sandbox$"],
  pattern: /access_token\$(?:production|sandbox)\$[a-z0-9]{16}\$(?<body>[a-f0-9]{32})/y,
  validate: (v) => looksRandom(v),
  examples: () => ({
    positive: [
      `BRAINTREE_TOKEN=access_token$production$${randomChars(16, 231, ALPHABETS.lowerAlnum)}$${randomChars(32, 232, ALPHABETS.hex)}`,
      `"access_token$sandbox$${randomChars(16, 233, ALPHABETS.lowerAlnum)}$${randomChars(32, 234, ALPHABETS.hex)}"`,
    ],
    negative: [
      "access_token$production$<merchant_id>$<token>", // documentation placeholder
      `access_token$production$${randomChars(16, 235, ALPHABETS.lowerAlnum)}$${"0".repeat(32)}`, // zeroed
    ],
  }),
};
export default rule;
