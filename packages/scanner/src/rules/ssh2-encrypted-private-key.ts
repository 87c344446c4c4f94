import type { Rule } from "../rule.js";
import { afterBeginLine, blockBody, blockChars } from "../rule-helpers/block-lines.js";
import { fakeBase64Lines } from "../rule-helpers/pem-fakes.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";

/**
 * SSH2 (SECSH / ssh.com, Tectia) private key: `---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----`, optional
 * `Header: value` lines, then at least 64 base64 characters of body. (Despite the label, the key
 * is often unencrypted.) Format: RFC 4716 "The Secure Shell (SSH) Public Key File Format" §3
 * (same armor), ssh.com documentation of the private-key variant.
 */
const block = (seed: number, header = ""): string =>
  `---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\n${header}${fakeBase64Lines(seed)}\n---- END SSH2 ENCRYPTED PRIVATE KEY ----`;

const rule: Rule = {
  id: "ssh2-encrypted-private-key",
  label: "SSH2 (ssh.com) private key",
  prefixes: ["---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----"],
  pattern:
    new RegExp(
    String.raw`---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----${afterBeginLine(4, false)}(?<secret>${blockChars(64)})`,
    "y",
  ),
  fingerprintOf: blockBody,
  validate: (value) =>
    isPlausibleSecret(blockBody(value), { minEntropy: 3.5, maxRun: 10, maxSequence: Infinity }),
  examples: () => ({
    positive: [block(1), block(2, 'Comment: "rsa-key-20240101"\n')],
    negative: [
      "---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\n...\n---- END SSH2 ENCRYPTED PRIVATE KEY ----", // placeholder body
      `---- BEGIN SSH2 PUBLIC KEY ----\n${fakeBase64Lines(3)}\n---- END SSH2 PUBLIC KEY ----`, // a public key
    ],
  }),
};
export default rule;
