import { randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * Stripe secret and restricted API keys: `sk_` or `rk_` + `live_`/`test_` (and `prod_`, seen in
 * restricted keys) + 24 to 247 base62 characters (Stripe keys are at most 255 characters). Test keys
 * are credentials too (they read and write test-mode data). Publishable keys (`pk_`) are public and
 * not matched. Stripe docs, "API keys" (https://docs.stripe.com/keys); gitleaks `stripe-access-token`.
 */
const rule: Rule = {
  id: "stripe-access-token",
  label: "Stripe secret or restricted API key",
  prefixes: ["sk_live_", "sk_test_", "sk_prod_", "rk_live_", "rk_test_", "rk_prod_"],
  pattern: /[sr]k_(?:live|test|prod)_(?<body>[A-Za-z0-9]{24,247})/y,
  validate: (v) => looksRandom(v),
  examples: () => ({
    positive: [
      `STRIPE_SECRET_KEY=sk_live_${randomChars(99, 191)}`,
      `Stripe.api_key = "rk_test_${randomChars(24, 192)}"`,
      `rk_prod_${randomChars(99, 193)}`,
    ],
    negative: [
      "sk_live_YOUR_KEY", // placeholder
      `sk_live_${"A".repeat(24)}`, // one repeated letter
      `pk_live_${randomChars(99, 194)}`, // publishable key: public by design
      `xsk_live_${randomChars(24, 195)}`, // prefix glued inside a word
      `sk_test_${randomChars(20, 196)}`, // too short
    ],
  }),
};
export default rule;
