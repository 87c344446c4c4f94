import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * Shopify app shared secret (app client secret used to sign OAuth and webhooks): `shpss_` + 32 hex characters (newer ones up to 38 base62). Shopify dev
 * docs, "Access tokens" (https://shopify.dev/docs/apps/build/authentication-authorization/access-tokens)
 * and changelog "Length of the Shopify access token is increasing"; gitleaks `shopify-shared-secret`.
 */
const rule: Rule = {
  id: "shopify-shared-secret",
  label: "Shopify app shared secret",
  prefixes: ["shpss_"],
  pattern: /shpss_(?<body>[A-Za-z0-9]{32,40})/y,
  validate: (v) => looksRandom(v),
  examples: () => ({
    positive: [`SHOPIFY_TOKEN=shpss_${randomChars(32, 1471, ALPHABETS.hex)}`, `"token": "shpss_${randomChars(38, 1472)}"`],
    negative: [
      `shpss_${"x".repeat(32)}`, // placeholder
      `shpss_${randomChars(20, 1473, ALPHABETS.hex)}`, // truncated
      `myshpss_${randomChars(32, 1474, ALPHABETS.hex)}`, // prefix glued inside a word
    ],
  }),
};
export default rule;
