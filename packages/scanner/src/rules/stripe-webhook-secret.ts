import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * Webhook signing secret `whsec_` + 32 base62 characters (Stripe) or base64 of 24 to 64 bytes
 * (Svix, which Clerk, Resend and others use); whoever has it can forge webhook calls. Stripe docs,
 * "Verify webhook signatures" (https://docs.stripe.com/webhooks#verify-events); Svix docs,
 * "Verifying webhooks" (https://docs.svix.com/receiving/verifying-payloads/how-manual).
 */
const rule: Rule = {
  id: "stripe-webhook-secret",
  label: "Stripe/Svix webhook signing secret",
  prefixes: ["whsec_"],
  pattern: /whsec_(?<body>[A-Za-z0-9+/]{32,88}={0,2})/y,
  validate: (v) => looksRandom(v.replace(/=+$/, "")),
  examples: () => ({
    positive: [`STRIPE_WEBHOOK_SECRET=whsec_${randomChars(32, 201)}`, `SVIX_SECRET="whsec_${randomChars(43, 202, ALPHABETS.base64)}="`],
    negative: [
      "whsec_...", // elided in docs
      `whsec_${"x".repeat(32)}`, // placeholder
      `whsec_${randomChars(20, 203)}`, // truncated
    ],
  }),
};
export default rule;
