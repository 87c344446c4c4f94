import type { Rule } from "../rule.js";
import { fakeBase64Lines } from "../rule-helpers/pem-fakes.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";

/**
 * PuTTY private key file (`.ppk`, versions 2 and 3): `PuTTY-User-Key-File-N: <algorithm>`, header
 * lines (`Encryption:`, `Comment:`, `Public-Lines:` + public key, key-derivation lines), then
 * `Private-Lines: <n>` and at least 64 base64 characters of the private part. At most 40 lines
 * are skipped between the first line and `Private-Lines:`, so an attempt is bounded.
 * Format: PuTTY manual, appendix C "PPK file format" (https://the.earth.li/~sgtatham/putty/0.78/htmldoc/AppendixC.html).
 */
const ppk = (version: number, seed: number): string =>
  [
    `PuTTY-User-Key-File-${version}: ssh-ed25519`,
    "Encryption: none",
    "Comment: eddsa-key-20240101",
    "Public-Lines: 2",
    fakeBase64Lines(seed, 2),
    "Private-Lines: 1",
    fakeBase64Lines(seed + 10, 1),
    `Private-MAC: ${"0123456789abcdef".repeat(4)}`,
  ].join("\n");

const rule: Rule = {
  id: "putty-private-key",
  label: "PuTTY private key",
  prefixes: ["PuTTY-User-Key-File-"],
  pattern:
    /PuTTY-User-Key-File-[23]: [A-Za-z0-9@.-]{3,40}\r?\n(?:[^\r\n]{0,100}\r?\n){1,30}?Private-Lines: [0-9]{1,3}\r?\n(?<secret>(?:[A-Za-z0-9+/=]\r?\n?){64})/y,
  validate: (value) => isPlausibleSecret(value.replace(/\s/g, ""), { minEntropy: 3.5, maxRun: 10, maxSequence: Infinity }),
  examples: () => ({
    positive: [ppk(2, 1), ppk(3, 2).replace(/\n/g, "\r\n")],
    negative: [
      ppk(2, 3).replace(/Private-Lines: 1\n.*\n/, "Private-Lines: 1\n...\n"), // placeholder private part
      "PuTTY-User-Key-File-2: ssh-rsa\nEncryption: none\n", // truncated: no private part
    ],
  }),
};
export default rule;
