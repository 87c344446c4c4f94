import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";

/**
 * WireGuard private key in a configuration file: `PrivateKey = ` + 44-character base64 of a
 * 32-byte Curve25519 key (43 characters, the last of `[AEIMQUYcgkosw048]`, then `=`).
 * Format: wg(8) manual, "CONFIGURATION FILE FORMAT" (https://man7.org/linux/man-pages/man8/wg.8.html)
 * and wg-quick(8).
 */
const key = (seed: number): string => `${randomChars(42, seed, ALPHABETS.base64)}${randomChars(1, seed + 1, "AEIMQUYcgkosw048")}=`;

const rule: Rule = {
  id: "wireguard-private-key",
  label: "WireGuard private key",
  prefixes: ["PrivateKey"],
  pattern: /PrivateKey[ \t]{0,16}=[ \t]{0,16}(?<secret>[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=)/y,
  validate: (value) => isPlausibleSecret(value.slice(0, 43), { minEntropy: 4 }),
  examples: () => ({
    positive: [`[Interface]\nAddress = 10.0.0.2/32\nPrivateKey = ${key(1)}\n`, `PrivateKey=${key(2)}`],
    negative: [
      "PrivateKey = <client-private-key>", // placeholder
      `PrivateKey = ${"A".repeat(43)}=`, // placeholder: one repeated character
      `PublicKey = ${key(3)}`, // a public key
    ],
  }),
};
export default rule;
