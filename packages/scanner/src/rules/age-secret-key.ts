import { randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { BECH32_CHARSET, bech32Encode, hasValidBech32Checksum } from "../rule-helpers/bech32.js";

/**
 * age X25519 identity (secret key): Bech32 with HRP `AGE-SECRET-KEY-`, upper-cased:
 * `AGE-SECRET-KEY-1` + 52 data characters (32 bytes) + 6 checksum characters. A key whose Bech32
 * checksum fails (e.g. the all-`Q` placeholder) is not reported.
 * Format: age specification, "X25519 recipient type" (https://age-encryption.org/v1) and BIP 173
 * (Bech32); gitleaks rule `age-secret-key`.
 */
const key = (seed: number): string => {
  const data = [...randomChars(52, seed, BECH32_CHARSET)].map((c) => BECH32_CHARSET.indexOf(c));
  return bech32Encode("age-secret-key-", data).toUpperCase();
};

const rule: Rule = {
  id: "age-secret-key",
  label: "age secret key",
  prefixes: ["AGE-SECRET-KEY-1"],
  pattern: /AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}/y,
  checksum: true,
  validate: (value) => hasValidBech32Checksum(value),
  examples: () => ({
    positive: [`# created: 2024-01-01\n# public key: age1...\n${key(1)}`, `SOPS_AGE_KEY=${key(2)}`],
    negative: [
      `AGE-SECRET-KEY-1${"Q".repeat(58)}`, // placeholder: checksum fails
      key(3).slice(0, -1) + (key(3).endsWith("Q") ? "P" : "Q"), // wrong checksum
      key(4).slice(0, -2), // truncated
    ],
  }),
};
export default rule;
