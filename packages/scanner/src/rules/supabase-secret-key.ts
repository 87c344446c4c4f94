import { ALPHABETS, randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";

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
  pattern: /(?<![A-Za-z0-9_-])sb_secret_[A-Za-z0-9_-]{24,64}(?![A-Za-z0-9_-])/y,
  validate: (value) => isPlausibleSecret(value.slice(10)),
  examples: () => ({
    positive: [
      `SUPABASE_SECRET_KEY=${token(1)}`,
      `{"token": "${token(2)}"}`,
      `export SUPABASE_SECRET_KEY='${token(5)}'`,
    ],
    negative: [
      `sb_secret_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX`, // placeholder: one repeated character
      `sb_secret_${randomChars(23, 3)}`, // truncated: 23 characters, below the minimum of 24
      `x${token(4)}`, // prefix glued to the end of a longer word
    ],
  }),
};
export default rule;
