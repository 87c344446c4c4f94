import { ALPHABETS, randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";
import { tokenExamples } from "../rule-helpers/token-examples.js";

/**
 * Cloudflare Origin CA key: `v1.0-` + 24 hex + `-` + 146 hex.
 * Format: Cloudflare API docs, "Origin CA keys" (https://developers.cloudflare.com/fundamentals/api/get-started/ca-keys/);
 * gitleaks rule `cloudflare-origin-ca-key`.
 */
const token = (seed: number): string =>
  `v1.0-${randomChars(24, seed, ALPHABETS.hex)}-${randomChars(146, seed + 1000, ALPHABETS.hex)}`;

const rule: Rule = {
  id: "cloudflare-origin-ca-key",
  label: "Cloudflare Origin CA key",
  prefixes: ["v1.0-"],
  pattern: /v1\.0-[a-f0-9]{24}-[a-f0-9]{146}/y,
  validate: (value) => isPlausibleSecret(value.slice(5), { maxRun: 8 }),
  examples: () =>
    tokenExamples(token, "CLOUDFLARE_ORIGIN_CA_KEY", [
      `v1.0-${"0".repeat(24)}-${"0".repeat(146)}`, // placeholder: one repeated character
      token(3).slice(0, -1), // truncated: one character short
      // and the token glued to the end of a longer word (added by tokenExamples)
    ]),
};
export default rule;
