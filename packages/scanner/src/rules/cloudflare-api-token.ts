import { randomChars } from "../fakes.js";
import { crc32 } from "../checksums.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";

/**
 * Cloudflare prefixed API credentials: `cfut_` (user API token), `cfat_` (account API token),
 * `cfk_` (global API key) + 40 alphanumerics + 8 lowercase hex = CRC-32 of those 40 characters.
 * A token whose checksum fails is not reported.
 * Format: Cloudflare docs, "Token formats" (https://developers.cloudflare.com/fundamentals/api/get-started/token-formats/);
 * secretlint rule `@secretlint/secretlint-rule-cloudflare`.
 */
const checksum = (body: string): string => crc32(body).toString(16).padStart(8, "0");
const token = (prefix: string, seed: number): string => {
  const body = randomChars(40, seed);
  return `${prefix}${body}${checksum(body)}`;
};

const rule: Rule = {
  id: "cloudflare-api-token",
  label: "Cloudflare API token",
  prefixes: ["cfut_", "cfat_", "cfk_"],
  pattern: /(?:cfut|cfat|cfk)_[A-Za-z0-9]{48}/y,
  checksum: true,
  validate: (value) => {
    const rest = value.slice(value.indexOf("_") + 1);
    const body = rest.slice(0, 40);
    return checksum(body) === rest.slice(40) && isPlausibleSecret(body, { maxSequence: Infinity });
  },
  examples: () => ({
    positive: [`CLOUDFLARE_API_TOKEN=${token("cfat_", 1)}`, `token: ${token("cfut_", 2)}`, `"${token("cfk_", 3)}"`],
    negative: [
      `cfat_${"X".repeat(40)}${checksum("X".repeat(40))}`, // placeholder: one repeated character
      `${token("cfut_", 4).slice(0, -1)}0`, // wrong checksum
      "cfat_tooshort", // truncated
      `${token("cfat_", 5)}x`, // glued to a longer word after it
    ],
  }),
};
export default rule;
