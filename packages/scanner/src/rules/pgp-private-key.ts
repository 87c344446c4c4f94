import type { Rule } from "../rule.js";
import { afterBeginLine, blockBody, blockChars } from "../rule-helpers/block-lines.js";
import { fakePemBlock } from "../rule-helpers/pem-fakes.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";

/**
 * OpenPGP secret key block: `-----BEGIN PGP PRIVATE KEY BLOCK-----`, optional armor headers
 * (`Version:`, `Comment:`, …) and a blank line, then at least 64 base64 characters of body.
 * Only the BEGIN line, headers and 64 body characters are matched.
 * Format: RFC 9580 "OpenPGP" §6.2 (ASCII armor, https://www.rfc-editor.org/rfc/rfc9580#section-6.2);
 * gitleaks reports these under `private-key`.
 */
const rule: Rule = {
  id: "pgp-private-key",
  label: "PGP private key block",
  prefixes: ["-----BEGIN PGP PRIVATE KEY BLOCK-----"],
  pattern:
    new RegExp(
    String.raw`-----BEGIN PGP PRIVATE KEY BLOCK-----${afterBeginLine(6, true)}(?<secret>${blockChars(64)})`,
    "y",
  ),
  fingerprintOf: blockBody,
  validate: (value) =>
    isPlausibleSecret(blockBody(value), { minEntropy: 3.5, maxRun: 10, maxSequence: Infinity }),
  examples: () => ({
    positive: [
      fakePemBlock("PGP PRIVATE KEY BLOCK", 1, { head: "lQWGBG" }),
      fakePemBlock("PGP PRIVATE KEY BLOCK", 2, { headers: ["Version: GnuPG v2", "Comment: backup key"] }),
    ],
    negative: [
      "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n...\n-----END PGP PRIVATE KEY BLOCK-----", // placeholder body
      fakePemBlock("PGP PUBLIC KEY BLOCK", 3), // a public key block
      "-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQWGBGSVV4YBDACl\n=8xQN\n-----END PGP PRIVATE KEY BLOCK-----", // body too short
    ],
  }),
};
export default rule;
