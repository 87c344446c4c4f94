import { randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";

/**
 * AWS access key ID: a 4-character type prefix (`AKIA` long-term IAM user key, `ASIA` temporary STS
 * key, `ABIA` STS service bearer token, `ACCA` context-specific credential, and the older `A3T*`)
 * + 16 characters of `[A-Z2-7]` (base32). The ID alone does not authenticate, but it is half of a
 * credential pair and names the account. AWS's documented example key (`…EXAMPLE`) is not reported.
 * Format: AWS IAM User Guide, "IAM identifiers", unique ID prefixes
 * (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_identifiers.html#identifiers-unique-ids);
 * gitleaks rule `aws-access-token`.
 */
const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const token = (prefix: string, seed: number): string => prefix + randomChars(16, seed, BASE32);

const rule: Rule = {
  id: "aws-access-token",
  label: "AWS access key ID",
  prefixes: ["AKIA", "ASIA", "ABIA", "ACCA", "A3T"],
  pattern: /(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}/y,
  validate: (value) => !value.endsWith("EXAMPLE") && isPlausibleSecret(value.slice(4), { minEntropy: 2.8 }),
  examples: () => ({
    positive: [
      `aws_access_key_id = ${token("AKIA", 1)}`,
      `AWS_ACCESS_KEY_ID="${token("ASIA", 2)}"`,
      `"AccessKeyId": "${token("ABIA", 3)}"`,
    ],
    negative: [
      "aws_access_key_id = AKIAIOSFODNN7EXAMPLE", // AWS's documented example key
      `AKIA${"X".repeat(16)}`, // placeholder: one repeated character
      "TODAYINASIAASACKOFRICEFELLOVER", // prefix inside an ordinary upper-case word
      token("AKIA", 4).slice(0, -1), // truncated: 15 characters after the prefix
    ],
  }),
};
export default rule;
