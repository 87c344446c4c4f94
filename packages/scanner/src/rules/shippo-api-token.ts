import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * Shippo API token: `shippo_live_` or `shippo_test_` + 40 hex characters. Shippo docs,
 * "Authentication" (https://docs.goshippo.com/docs/guides_general/authentication/); gitleaks
 * `shippo-api-token`.
 */
const rule: Rule = {
  id: "shippo-api-token",
  label: "Shippo API token",
  prefixes: ["shippo_live_", "shippo_test_"],
  pattern: /shippo_(?:live|test)_(?<body>[a-fA-F0-9]{40})/y,
  validate: (v) => looksRandom(v),
  examples: () => ({
    positive: [`SHIPPO_API_KEY=shippo_live_${randomChars(40, 271, ALPHABETS.hex)}`, `Authorization: ShippoToken shippo_test_${randomChars(40, 272, ALPHABETS.hex)}`],
    negative: [
      `shippo_live_${"0".repeat(40)}`, // zeroed
      `shippo_test_${randomChars(32, 273, ALPHABETS.hex)}`, // truncated
    ],
  }),
};
export default rule;
