import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";

/**
 * HashiCorp Vault service token: `hvs.` + 90 to 120 base64url characters (Vault 1.10+), or the
 * legacy `s.` + 24 alphanumerics. The legacy prefix is two characters, so a legacy token must mix
 * digits, upper and lower case (as generated tokens do; `s.makeKubeConfigController` does not).
 * Format: Vault docs, "Tokens", token prefixes
 * (https://developer.hashicorp.com/vault/docs/concepts/tokens#token-prefixes);
 * gitleaks rule `vault-service-token`.
 */
const modern = (seed: number): string => `hvs.${randomChars(95, seed, ALPHABETS.base64url)}`;
const legacy = (seed: number): string => `s.${randomChars(24, seed)}`;

const MIXED = /^(?=.*[0-9])(?=.*[A-Z])(?=.*[a-z])/;

const rule: Rule = {
  id: "vault-service-token",
  label: "HashiCorp Vault service token",
  prefixes: ["hvs.", "s."],
  pattern: /(?:hvs\.[A-Za-z0-9_-]{90,120}|s\.[A-Za-z0-9]{24})/y,
  validate: (value) =>
    value.startsWith("hvs.")
      ? isPlausibleSecret(value.slice(4), { maxRun: 10 })
      : MIXED.test(value.slice(2)) && isPlausibleSecret(value.slice(2), { minEntropy: 3.5 }),
  examples: () => ({
    positive: [`VAULT_TOKEN=${modern(1)}`, `token: ${legacy(2)}`, `vault login '${modern(3)}'`],
    negative: [
      `hvs.${"x".repeat(95)}`, // placeholder: one repeated character
      "s.AcceptanceTimeoutSeconds ", // an identifier after "s.", no digits
      `hvs.${randomChars(40, 4)}`, // truncated: 40 characters after the prefix
      `${modern(5)}.more`, // glued to a following dotted name
    ],
  }),
};
export default rule;
