import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";

const uuid = (seed: number) =>
  [8, 4, 4, 4, 12].map((n, i) => randomChars(n, seed * 10 + i, ALPHABETS.hex)).join("-");

/**
 * Plaid access token: `access-<environment>-` + UUID, environment `production`, `development` or
 * `sandbox`; with the client secret it reads a user's bank data. Plaid docs, "Item access tokens"
 * (https://plaid.com/docs/api/items/#token-exchange-flow); gitleaks `plaid-api-token`.
 */
const rule: Rule = {
  id: "plaid-api-token",
  label: "Plaid access token",
  prefixes: ["access-production-", "access-development-", "access-sandbox-"],
  pattern:
    /access-(?:production|development|sandbox)-(?<body>[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/y,
  validate: (v) => !/^[0-]+$/.test(v),
  examples: () => ({
    positive: [`PLAID_ACCESS_TOKEN=access-production-${uuid(26)}`, `"access_token": "access-sandbox-${uuid(27)}"`],
    negative: [
      "access-sandbox-00000000-0000-0000-0000-000000000000", // zeroed placeholder
      "access-production-<uuid>", // documentation placeholder
      `no-access-production-${uuid(28)}`, // prefix glued inside a longer word
    ],
  }),
};
export default rule;
