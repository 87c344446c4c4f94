import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * Flutterwave encryption key (3DES key for card payloads): `FLWSECK` or `FLWSECK_TEST` directly
 * followed by 12 hex characters (no dash). Flutterwave docs, "Encryption"
 * (https://developer.flutterwave.com/docs/integration-guides/encryption); gitleaks
 * `flutterwave-encryption-key` (which writes a dash; dashboard keys have none).
 */
const rule: Rule = {
  id: "flutterwave-encryption-key",
  label: "Flutterwave encryption key",
  prefixes: ["FLWSECK"],
  pattern: /FLWSECK(?:_TEST)?(?<body>[a-f0-9]{12})/y,
  validate: (v) => looksRandom(v, 2.5),
  examples: () => ({
    positive: [`FLW_ENCRYPTION_KEY=FLWSECK_TEST${randomChars(12, 251, ALPHABETS.hex)}`, `encKey: "FLWSECK${randomChars(12, 252, ALPHABETS.hex)}"`],
    negative: [
      `FLWSECK_TEST-${randomChars(32, 253, ALPHABETS.hex)}-X`, // a secret key (other rule)
      "FLWSECK_TEST000000000000", // zeroed
    ],
  }),
};
export default rule;
