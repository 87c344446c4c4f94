import { ALPHABETS, randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";
import { tokenExamples } from "../rule-helpers/token-examples.js";

/**
 * Supabase secret API key: `sb_secret_` + 24 to 64 base64url characters (replaces the `service_role` JWT).
 * Format: Supabase docs, "API keys" (https://supabase.com/docs/guides/api/api-keys). The publishable
 * `sb_publishable_` key is public by design and not matched.
 */
const token = (seed: number): string => `sb_secret_${randomChars(31, seed, ALPHABETS.base64url)}`;

const rule: Rule = {
  id: "supabase-secret-key",
  label: "Supabase secret API key",
  prefixes: ["sb_secret_"],
  pattern: /sb_secret_[A-Za-z0-9_-]{24,64}/y,
  validate: (value) => isPlausibleSecret(value.slice(10)),
  examples: () =>
    tokenExamples(token, "SUPABASE_SECRET_KEY", [
      `sb_secret_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX`, // placeholder: one repeated character
      `sb_secret_${randomChars(23, 3)}`, // truncated: 23 characters, below the minimum of 24
      // and the token glued to the end of a longer word (added by tokenExamples)
    ]),
};
export default rule;
