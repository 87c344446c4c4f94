import type { Rule } from "../rule.js";
import { BREAK, LINE_LEAD } from "../rule-helpers/block-lines.js";
import { fakeBase64Lines } from "../rule-helpers/pem-fakes.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";

/**
 * PuTTY private key file (`.ppk`, versions 2 and 3): `PuTTY-User-Key-File-N: <algorithm>`, header
 * lines (`Encryption:`, `Comment:`, `Public-Lines:` + public key, key-derivation lines), then
 * `Private-Lines: <n>` and the private part, base64 in lines of at most 64 characters. The finding
 * is the first private line: 40 to 64 characters, so the short private parts of unencrypted
 * ed25519 (48 characters: a 32-byte string) and ecdsa-nistp256 keys (48 or 52: a 32/33-byte mpint)
 * are found as well as RSA's. At most 30 lines are skipped between the first line and
 * `Private-Lines:`, so an attempt is bounded.
 * Format: PuTTY manual, appendix C "PPK file format"
 * (https://the.earth.li/~sgtatham/putty/0.78/htmldoc/AppendixC.html); real keys made with
 * `puttygen` are checked in putty-private-key.test.ts.
 */
const ppk = (version: number, seed: number, algorithm = "ssh-ed25519", privateChars = 48): string =>
  [
    `PuTTY-User-Key-File-${version}: ${algorithm}`,
    "Encryption: none",
    "Comment: eddsa-key-20240101",
    "Public-Lines: 2",
    fakeBase64Lines(seed, 2),
    "Private-Lines: 1",
    "AAAAI" + fakeBase64Lines(seed + 10, 1, privateChars - 5),
    `Private-MAC: ${"0123456789abcdef".repeat(4)}`,
  ].join("\n");

const rule: Rule = {
  id: "putty-private-key",
  label: "PuTTY private key",
  prefixes: ["PuTTY-User-Key-File-"],
  pattern:
    new RegExp(
    String.raw`PuTTY-User-Key-File-[23]: [A-Za-z0-9@.-]{3,40}[ \t]{0,16}${BREAK}(?:[^\r\n\\]{0,100}${BREAK}){1,30}?${LINE_LEAD}Private-Lines: [0-9]{1,3}[ \t]{0,16}${BREAK}${LINE_LEAD}(?<secret>[A-Za-z0-9+/=]{40,64})`,
    "y",
  ),
  validate: (value) => isPlausibleSecret(value.slice(5), { minEntropy: 3.5, maxRun: 10, maxSequence: Infinity }),
  examples: () => ({
    positive: [ppk(2, 1), ppk(3, 2).replace(/\n/g, "\r\n"), ppk(3, 3, "ecdsa-sha2-nistp256", 52), ppk(3, 4, "ssh-rsa", 64)],
    negative: [
      ppk(2, 3).replace(/Private-Lines: 1\n.*\n/, "Private-Lines: 1\n...\n"), // placeholder private part
      "PuTTY-User-Key-File-2: ssh-rsa\nEncryption: none\n", // truncated: no private part
      ppk(3, 5).replace(/Private-Lines: 1\n.*\n/, `Private-Lines: 1\nAAAAI${"A".repeat(43)}\n`), // placeholder: one repeated character
    ],
  }),
};
export default rule;
