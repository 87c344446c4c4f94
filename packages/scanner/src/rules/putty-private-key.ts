import type { Rule } from "../rule.js";
import { LINE_END, LINE_LEAD, NEWLINE, afterBeginLine } from "../rule-helpers/block-lines.js";
import { fakeBase64Lines } from "../rule-helpers/pem-fakes.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";

/**
 * PuTTY private key file (`.ppk`, versions 2 and 3): `PuTTY-User-Key-File-N: <algorithm>`, header
 * lines (`Encryption:`, `Comment:`, `Public-Lines:` + public key, key-derivation lines), then
 * `Private-Lines: <n>` and the private part, base64 in lines of 64 characters (the last one
 * shorter). The finding is the first private line.
 *
 * Its length, from the private part's structure (PuTTY manual, appendix C "PPK file format",
 * https://the.earth.li/~sgtatham/putty/0.78/htmldoc/AppendixC.html, C.3): unencrypted, the part is
 * the key's fields as SSH `mpint`/`string` (a 4-byte length, then the bytes), unpadded; encrypted
 * (`aes256-cbc`), padded to a multiple of 16 bytes, so at least 32 bytes (44 characters). Unencrypted:
 * - `ssh-dss`: `mpint x`, x < q of 160 bits: 21 bytes when its top bit is set, else 20 or fewer
 *   (19 with odds 2^-8, ...): 4 + 21 bytes = 36 characters, 4 + 18..20 = 32; the bound, 28
 *   characters (4 + 15 to 17 bytes), leaves out only an x under 2^120 (odds 2^-40). A q of 224 or
 *   256 bits (FIPS 186-3) gives 44 to 52;
 * - `ecdsa-sha2-nistp256`: `mpint` of 32 bytes (33 with the top bit set, 31 with odds 2^-8): 48 or 52;
 * - `ssh-ed25519`: 48 (a 32-byte field);
 * - `ecdsa-sha2-nistp384`, `-nistp521`, `ssh-ed448`, `ssh-rsa` (`mpint d, p, q, iqmp`): over 48
 *   bytes, so a first line of 64.
 * Hence 28 to 64 characters (`putty-private-key.test.ts` checks every type, encrypted and not,
 * PPK 2 and 3, with keys made by `puttygen`).
 *
 * Between the first line and `Private-Lines:` at most 128 lines are skipped: 3 headers, the public
 * key (44 lines for a 16384-bit RSA key, 26 for 3072-bit DSA, more with an OpenSSH certificate:
 * 29 for one of 40 principals) and 5 key-derivation lines (PPK 3, encrypted). A skipped line never holds `PuTTY-User-Key-File-`, so an attempt stops at the next
 * key's header and no line is read by two attempts (issue 10: a line of `PuTTY-User-Key-File-3:
 * ssh-ed25519` repeated made each attempt read the next 30 lines, ~7.7x Markdown per byte).
 *
 * The private section alone (`Private-Lines: <n>` and its lines, without the header: try14 F5) is
 * reported too, by the second prefix: it is the private key itself (an unencrypted key's private
 * fields: the ed25519 seed, RSA's d, p, q; an encrypted one's ciphertext, as an encrypted PEM key
 * is reported), and `Private-Lines:` is PPK's own field name. Same finding (its first line) with or
 * without the header; a `Private-Lines:` hit inside a match from the header is skipped. The skipped
 * header lines end at a plain line break (`NEWLINE`): a header joined by `<br>` is found from its
 * `Private-Lines:` (and the 128-line window stays under the longest match the engine allows).
 */
/** A fake `.ppk`; `lead` opens the private part (`AAAAI`: a 32- or 33-byte first field, `AAAAF`: 20 or 21 bytes, a DSA x). */
const ppk = (version: number, seed: number, algorithm = "ssh-ed25519", privateChars = 48, lead = "AAAAI"): string =>
  [
    `PuTTY-User-Key-File-${version}: ${algorithm}`,
    "Encryption: none",
    "Comment: eddsa-key-20240101",
    "Public-Lines: 2",
    fakeBase64Lines(seed, 2),
    "Private-Lines: 1",
    lead + fakeBase64Lines(seed + 10, 1, privateChars - lead.length),
    `Private-MAC: ${"0123456789abcdef".repeat(4)}`,
  ].join("\n");

const rule: Rule = {
  id: "putty-private-key",
  label: "PuTTY private key",
  prefixes: ["PuTTY-User-Key-File-", "Private-Lines: "],
  pattern:
    new RegExp(
    String.raw`(?:PuTTY-User-Key-File-[23]: [A-Za-z0-9@.-]{3,40}${LINE_END}(?:(?:(?!PuTTY-User-Key-File-)[^\r\n\\]){0,100}${NEWLINE}){1,128}?${LINE_LEAD})?Private-Lines: [0-9]{1,3}${afterBeginLine(0, false)}(?<secret>[A-Za-z0-9+/=]{28,64})`,
    "y",
  ),
  validate: (value) => isPlausibleSecret(value.slice(5), { minEntropy: 3.5, maxRun: 10, maxSequence: Infinity }),
  examples: () => ({
    positive: [
      ppk(2, 1), ppk(3, 2).replace(/\n/g, "\r\n"), ppk(3, 3, "ecdsa-sha2-nistp256", 52), ppk(3, 4, "ssh-rsa", 64), ppk(3, 6, "ssh-dss", 32, "AAAAF"),
      ppk(3, 7).slice(ppk(3, 7).indexOf("Private-Lines:")), // the private section alone
    ],
    negative: [
      ppk(2, 3).replace(/Private-Lines: 1\n.*\n/, "Private-Lines: 1\n...\n"), // placeholder private part
      "PuTTY-User-Key-File-2: ssh-rsa\nEncryption: none\n", // truncated: no private part
      "Private-Lines: 1\nAAAAIxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", // the private section alone, placeholder
      `Private-Lines: 14 (${"a".repeat(30)})`, // the field name in prose, no private line after it
      ppk(3, 5).replace(/Private-Lines: 1\n.*\n/, `Private-Lines: 1\nAAAAI${"A".repeat(43)}\n`), // placeholder: one repeated character
    ],
  }),
};
export default rule;
