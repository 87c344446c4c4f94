import type { Rule } from "../rule.js";
import { afterBeginLine, blockBody, blockChars } from "../rule-helpers/block-lines.js";
import { fakePemBlock } from "../rule-helpers/pem-fakes.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";

/**
 * PEM private key: `-----BEGIN [RSA |EC |DSA |ENCRYPTED |…]PRIVATE KEY-----` (PKCS#1, SEC 1,
 * PKCS#8, encrypted PKCS#8, and any other `… PRIVATE KEY` label except OPENSSH and PGP, which have
 * their own rules), optional RFC 1421 headers (`Proc-Type:`, `DEK-Info:`), then at least 64 base64
 * characters of body. Line breaks may be real or JSON-escaped (`\n`, as in service-account JSON).
 * Only the BEGIN line and the first 64 body characters are matched, so each attempt is bounded;
 * placeholders (`...`, `xxx`, `***`, short dummy bodies) are not reported.
 * Format: RFC 7468 "Textual Encodings of PKIX, PKCS, and CMS Structures" §10-11
 * (https://www.rfc-editor.org/rfc/rfc7468); gitleaks rule `private-key`.
 */
const rule: Rule = {
  id: "private-key",
  label: "Private key (PEM)",
  prefixes: ["-----BEGIN "],
  pattern:
    new RegExp(
    String.raw`-----BEGIN (?!OPENSSH |PGP )(?:[A-Z0-9]{1,20} ){0,2}PRIVATE KEY-----(?:${afterBeginLine(4, true)})?(?<secret>${blockChars(64)})`,
    "y",
  ),
  fingerprintOf: blockBody,
  validate: (value) =>
    isPlausibleSecret(blockBody(value), { minEntropy: 3.5, maxRun: 10, maxSequence: Infinity }),
  examples: () => ({
    positive: [
      fakePemBlock("PRIVATE KEY", 1, { head: "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC" }),
      fakePemBlock("RSA PRIVATE KEY", 10, { head: "MIIEpAIBAAKCAQEA" }),
      `{"private_key": "${fakePemBlock("PRIVATE KEY", 20, { newline: "\\n" })}"}`,
      fakePemBlock("RSA PRIVATE KEY", 30, { headers: ["Proc-Type: 4,ENCRYPTED", "DEK-Info: AES-128-CBC,0123456789ABCDEF0123456789ABCDEF"] }),
      fakePemBlock("EC PRIVATE KEY", 40),
      fakePemBlock("ENCRYPTED PRIVATE KEY", 50),
    ],
    negative: [
      "-----BEGIN PRIVATE KEY-----\n...\n-----END PRIVATE KEY-----", // placeholder body
      "-----BEGIN PRIVATE KEY-----\nYWJjZGVmZ2hpamtsbW5vcHFyc3R1dnd4eXo=\n-----END PRIVATE KEY-----", // body too short to be a key
      `-----BEGIN PRIVATE KEY-----\n${"A".repeat(64)}\n-----END PRIVATE KEY-----`, // placeholder: one repeated character
      "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAu1SU1LfVLPHCozMxH2Mo\n-----END PUBLIC KEY-----", // a public key
    ],
  }),
};
export default rule;
