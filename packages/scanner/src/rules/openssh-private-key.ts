import type { Rule } from "../rule.js";
import { afterBeginLine, blockBody, blockChars } from "../rule-helpers/block-lines.js";
import { fakePemBlock } from "../rule-helpers/pem-fakes.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";

/**
 * OpenSSH private key: `-----BEGIN OPENSSH PRIVATE KEY-----` then at least 64 base64 characters of
 * body (which starts with the base64 of `openssh-key-v1`). The binary header holds runs of `A`, so
 * only entropy and placeholder words are checked. Only the BEGIN line and 64 body characters are
 * matched. Format: OpenSSH `PROTOCOL.key` (https://github.com/openssh/openssh-portable/blob/master/PROTOCOL.key);
 * gitleaks reports these under `private-key`.
 */
const HEAD = "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW";

const rule: Rule = {
  id: "openssh-private-key",
  label: "OpenSSH private key",
  prefixes: ["-----BEGIN OPENSSH PRIVATE KEY-----"],
  pattern:
    new RegExp(String.raw`-----BEGIN OPENSSH PRIVATE KEY-----${afterBeginLine(0, false)}(?<secret>${blockChars(64)})`, "y"),
  fingerprintOf: blockBody,
  validate: (value) =>
    isPlausibleSecret(blockBody(value), { minEntropy: 3, maxRun: Infinity, maxSequence: Infinity }),
  examples: () => ({
    positive: [
      fakePemBlock("OPENSSH PRIVATE KEY", 1, { head: HEAD }).replace(/^(.{35}\n)(.{64})/, "$1$2"),
      `key: |\n  ${fakePemBlock("OPENSSH PRIVATE KEY", 2).replace(/\n/g, "\n  ")}`,
    ],
    negative: [
      "-----BEGIN OPENSSH PRIVATE KEY----------END OPENSSH PRIVATE KEY-----", // empty block
      "-----BEGIN OPENSSH PRIVATE KEY-----\nxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n-----END OPENSSH PRIVATE KEY-----", // placeholder
      "-----BEGIN OPENSSH PRIVATE KEY-----\n<your key here>\n-----END OPENSSH PRIVATE KEY-----", // placeholder
    ],
  }),
};
export default rule;
