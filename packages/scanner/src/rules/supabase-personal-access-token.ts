import { ALPHABETS, randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";
import { tokenExamples } from "../rule-helpers/token-examples.js";

/**
 * Supabase personal access token (Management API): `sbp_` + 40 lowercase hex.
 * Format: Supabase docs, "Management API" authentication (https://supabase.com/docs/reference/api/introduction);
 * also listed by GitHub secret scanning as `supabase_personal_access_token`.
 */
const token = (seed: number): string => `sbp_${randomChars(40, seed, ALPHABETS.hex)}`;

const rule: Rule = {
  id: "supabase-personal-access-token",
  label: "Supabase personal access token",
  prefixes: ["sbp_"],
  pattern: /sbp_[a-f0-9]{40}/y,
  validate: (value) => isPlausibleSecret(value.slice(4)),
  examples: () =>
    tokenExamples(token, "SUPABASE_ACCESS_TOKEN", [
      `sbp_0000000000000000000000000000000000000000`, // placeholder: one repeated character
      token(3).slice(0, -1), // truncated: one character short
      // and the token glued to the end of a longer word (added by tokenExamples)
    ]),
};
export default rule;
