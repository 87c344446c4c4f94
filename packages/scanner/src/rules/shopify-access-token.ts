import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * Shopify Admin API access token (public and custom apps installed by OAuth): `shpat_` + 32 hex characters (newer ones up to 38 base62). Shopify dev
 * docs, "Access tokens" (https://shopify.dev/docs/apps/build/authentication-authorization/access-tokens)
 * and changelog "Length of the Shopify access token is increasing"; gitleaks `shopify-access-token`.
 */
const rule: Rule = {
  id: "shopify-access-token",
  label: "Shopify Admin API access token",
  prefixes: ["shpat_"],
  pattern: /shpat_(?<body>[A-Za-z0-9]{32,40})/y,
  validate: (v) => looksRandom(v),
  examples: () => ({
    positive: [`SHOPIFY_TOKEN=shpat_${randomChars(32, 1401, ALPHABETS.hex)}`, `"token": "shpat_${randomChars(38, 1402)}"`],
    negative: [
      `shpat_${"x".repeat(32)}`, // placeholder
      `shpat_${randomChars(20, 1403, ALPHABETS.hex)}`, // truncated
      `myshpat_${randomChars(32, 1404, ALPHABETS.hex)}`, // prefix glued inside a word
    ],
  }),
};
export default rule;
