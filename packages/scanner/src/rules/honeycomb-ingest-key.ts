import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * Honeycomb ingest key: `hcaik_` (environment) or `hcxik_` (classic) + 58 lower-case alphanumerics
 * (64 characters in all). Honeycomb docs, "API keys: ingest keys"
 * (https://docs.honeycomb.io/configure/environments/manage-api-keys/).
 */
const rule: Rule = {
  id: "honeycomb-ingest-key",
  label: "Honeycomb ingest key",
  prefixes: ["hcaik_", "hcxik_"],
  pattern: /hc[ax]ik_(?<body>[a-z0-9]{58})/y,
  validate: (v) => looksRandom(v),
  examples: () => ({
    positive: [`HONEYCOMB_API_KEY=hcaik_${randomChars(58, 661, ALPHABETS.lowerAlnum)}`, `x-honeycomb-team: hcxik_${randomChars(58, 662, ALPHABETS.lowerAlnum)}`],
    negative: [
      `hcaik_${"x".repeat(58)}`, // placeholder
      `hcaik_${randomChars(30, 663, ALPHABETS.lowerAlnum)}`, // truncated
    ],
  }),
};
export default rule;
