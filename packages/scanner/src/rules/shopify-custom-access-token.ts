import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * Shopify custom app access token (custom apps created in the admin): `shpca_` + 32 hex characters (newer ones up to 38 base62). Shopify dev
 * docs, "Access tokens" (https://shopify.dev/docs/apps/build/authentication-authorization/access-tokens)
 * and changelog "Length of the Shopify access token is increasing"; gitleaks `shopify-custom-access-token`.
 */
const rule: Rule = {
  id: "shopify-custom-access-token",
  label: "Shopify custom app access token",
  prefixes: ["shpca_"],
  pattern: /shpca_(?<body>[A-Za-z0-9]{32,40})/y,
  validate: (v) => looksRandom(v),
  examples: () => ({
    positive: [`SHOPIFY_TOKEN=shpca_${randomChars(32, 1891, ALPHABETS.hex)}`, `"token": "shpca_${randomChars(38, 1892)}"`],
    negative: [
      `shpca_${"x".repeat(32)}`, // placeholder
      `shpca_${randomChars(20, 1893, ALPHABETS.hex)}`, // truncated
      `myshpca_${randomChars(32, 1894, ALPHABETS.hex)}`, // prefix glued inside a word
    ],
  }),
};
export default rule;
