import { ALPHABETS, randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";
import { tokenExamples } from "../rule-helpers/token-examples.js";

/**
 * HashiCorp Vault batch token: `hvb.` + 138 to 300 base64url characters (Vault 1.10+).
 * Format: Vault docs, "Tokens" / token prefixes (https://developer.hashicorp.com/vault/docs/concepts/tokens#token-prefixes);
 * gitleaks rule `vault-batch-token`.
 */
const token = (seed: number): string => `hvb.${randomChars(150, seed, ALPHABETS.base64url)}`;

const rule: Rule = {
  id: "vault-batch-token",
  label: "HashiCorp Vault batch token",
  prefixes: ["hvb."],
  pattern: /hvb\.[A-Za-z0-9_-]{138,300}/y,
  validate: (value) => isPlausibleSecret(value.slice(4), { maxRun: 10 }),
  examples: () =>
    tokenExamples(token, "VAULT_TOKEN", [
      `hvb.XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX`, // placeholder: one repeated character
      `hvb.${randomChars(137, 3, ALPHABETS.base64url)}`, // truncated: 137 characters, below the documented minimum
      // and the token glued to the end of a longer word (added by tokenExamples)
    ]),
};
export default rule;
