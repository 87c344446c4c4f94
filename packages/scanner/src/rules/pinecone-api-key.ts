import { randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * Pinecone API key (2024 format): `pcsk_` + short key id (base62) + `_` + long base62 secret (about
 * 63 characters). Pinecone docs, "Authentication" (https://docs.pinecone.io/guides/projects/manage-api-keys).
 * Older Pinecone keys are bare UUIDs and are not matched.
 */
const rule: Rule = {
  id: "pinecone-api-key",
  label: "Pinecone API key",
  prefixes: ["pcsk_"],
  pattern: /pcsk_[A-Za-z0-9]{4,10}_(?<body>[A-Za-z0-9]{50,80})/y,
  validate: (v) => looksRandom(v),
  examples: () => ({
    positive: [`PINECONE_API_KEY=pcsk_${randomChars(6, 501)}_${randomChars(63, 502)}`, `Pinecone(api_key="pcsk_${randomChars(5, 503)}_${randomChars(63, 504)}")`],
    negative: [
      `pcsk_${randomChars(6, 505)}_${"x".repeat(63)}`, // placeholder
      `pcsk_${randomChars(6, 506)}_${randomChars(30, 507)}`, // truncated
      "PINECONE_API_KEY=pcsk_your_api_key", // placeholder
    ],
  }),
};
export default rule;
