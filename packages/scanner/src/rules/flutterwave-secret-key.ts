import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * Flutterwave secret key: `FLWSECK-` (live) or `FLWSECK_TEST-` + 32 hex + `-X`. Flutterwave docs,
 * "API keys" (https://developer.flutterwave.com/docs/integration-guides/authentication); gitleaks
 * `flutterwave-secret-key`. Public keys (`FLWPUBK`) are not secret and not matched.
 */
const rule: Rule = {
  id: "flutterwave-secret-key",
  label: "Flutterwave secret key",
  prefixes: ["FLWSECK-", "FLWSECK_TEST-"],
  pattern: /FLWSECK(?:_TEST)?-(?<body>[a-fA-F0-9]{32})-X/y,
  validate: (v) => looksRandom(v),
  examples: () => ({
    positive: [`FLW_SECRET_KEY=FLWSECK_TEST-${randomChars(32, 241, ALPHABETS.hex)}-X`, `secret: "FLWSECK-${randomChars(32, 242, ALPHABETS.hex)}-X"`],
    negative: [
      "FLWSECK_TEST-XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX-X", // placeholder
      `FLWPUBK_TEST-${randomChars(32, 243, ALPHABETS.hex)}-X`, // public key
      `FLWSECK-${randomChars(32, 244, ALPHABETS.hex)}`, // missing the -X suffix: truncated
    ],
  }),
};
export default rule;
