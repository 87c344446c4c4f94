import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * Shopify private app access token (legacy private apps): `shppa_` + 32 hex characters (newer ones up to 38 base62). Shopify dev
 * docs, "Access tokens" (https://shopify.dev/docs/apps/build/authentication-authorization/access-tokens)
 * and changelog "Length of the Shopify access token is increasing"; gitleaks `shopify-private-app-access-token`.
 */
const rule: Rule = {
  id: "shopify-private-app-access-token",
  label: "Shopify private app access token",
  prefixes: ["shppa_"],
  pattern: /shppa_(?<body>[A-Za-z0-9]{32,40})/y,
  validate: (v) => looksRandom(v),
  examples: () => ({
    positive: [`SHOPIFY_TOKEN=shppa_${randomChars(32, 2241, ALPHABETS.hex)}`, `"token": "shppa_${randomChars(38, 2242)}"`],
    negative: [
      `shppa_${"x".repeat(32)}`, // placeholder
      `shppa_${randomChars(20, 2243, ALPHABETS.hex)}`, // truncated
      `myshppa_${randomChars(32, 2244, ALPHABETS.hex)}`, // prefix glued inside a word
    ],
  }),
};
export default rule;
