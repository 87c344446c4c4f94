import { ALPHABETS, randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";
import { tokenExamples } from "../rule-helpers/token-examples.js";

/**
 * Databricks personal access token: `dapi` + 32 hex, optionally `-<digit>`.
 * Format: Databricks docs, "Authenticate with Databricks personal access tokens"
 * (https://docs.databricks.com/en/dev-tools/auth/pat.html); gitleaks rule `databricks-api-token`.
 */
const token = (seed: number): string => `dapi${randomChars(32, seed, ALPHABETS.hex)}`;

const rule: Rule = {
  id: "databricks-api-token",
  label: "Databricks personal access token",
  prefixes: ["dapi"],
  pattern: /dapi[a-fA-F0-9]{32}(?:-\d)?/y,
  validate: (value) => isPlausibleSecret(value.slice(4, 36)),
  examples: () =>
    tokenExamples(token, "DATABRICKS_TOKEN", [
      `dapi00000000000000000000000000000000`, // placeholder: one repeated character
      token(3).slice(0, -1), // truncated: one character short
      // and the token glued to the end of a longer word (added by tokenExamples)
    ]),
};
export default rule;
