import { randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { pairRule } from "../rule-helpers/key-pair.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";

/**
 * AWS secret access key next to its access key ID: an `AKIA` (long-term) or `ASIA` (temporary)
 * key ID, then, on the same line or one of the next 4 (each read up to 160 characters), a run of
 * exactly 40 characters of `[A-Za-z0-9/+]` (30 random bytes, base64); or, when none follows the ID,
 * the nearest such run before it within the same distance (`AWS_SECRET_ACCESS_KEY=` written first,
 * `secret_key` before `access_key` in Terraform, `-e` flags in any order). A 40-character run alone is
 * too common (hashes, base64) to report; next to a key ID it is the pair that signs requests, so the
 * finding is the secret key (the ID is `aws-access-token`'s finding). Order as AWS prints and stores
 * it: `~/.aws/credentials`, `aws iam create-access-key` / `aws sts` JSON (`AccessKeyId` before
 * `SecretAccessKey`), the console's CSV, `AWS_ACCESS_KEY_ID=` before `AWS_SECRET_ACCESS_KEY=`.
 * Lower-case hex (a git commit id) and values without both letter cases and a digit are not reported;
 * AWS's documented example pair is not either (examples.ts).
 * Format: AWS IAM User Guide, "Manage access keys for IAM users"
 * (https://docs.aws.amazon.com/IAM/latest/UserGuide/id_credentials_access-keys.html); AWS SDKs and
 * Tools Reference Guide, "Shared config and credentials files".
 */
const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const id = (prefix: string, seed: number): string => prefix + randomChars(16, seed, BASE32);
const secret = (seed: number): string => randomChars(40, seed, BASE64);

const rule: Rule = {
  id: "aws-secret-access-key",
  label: "AWS secret access key (next to its access key ID)",
  prefixes: ["AKIA", "ASIA"],
  ...pairRule("(?:AKIA|ASIA)[A-Z2-7]{16}", "[A-Za-z0-9/+]", 40),
  validate: (value) =>
    /[a-z]/.test(value) && /[A-Z]/.test(value) && /[0-9]/.test(value) && isPlausibleSecret(value, { minEntropy: 4, maxSequence: 6 }),
  examples: () => ({
    positive: [
      `[default]\naws_access_key_id = ${id("AKIA", 1)}\naws_secret_access_key = ${secret(2)}\n`,
      `export AWS_ACCESS_KEY_ID=${id("ASIA", 3)}\nexport AWS_SECRET_ACCESS_KEY="${secret(4)}"\nexport AWS_SESSION_TOKEN=x\n`,
      `{\n  "AccessKey": {\n    "UserName": "ci",\n    "AccessKeyId": "${id("AKIA", 5)}",\n    "Status": "Active",\n    "SecretAccessKey": "${secret(6)}"\n  }\n}`,
      `Access key ID,Secret access key\n${id("AKIA", 7)},${secret(8)}\n`,
      `AWS_SECRET_ACCESS_KEY=${secret(16)}\nAWS_ACCESS_KEY_ID=${id("AKIA", 17)}\n`, // secret first
      `docker run -e AWS_SECRET_ACCESS_KEY=${secret(18)} -e AWS_ACCESS_KEY_ID=${id("ASIA", 19)} app`,
    ],
    negative: [
      `aws_access_key_id = ${id("AKIA", 9)}\n\n\n\n\n\naws_secret_access_key = ${secret(10)}`, // too far: 6 lines apart
      `aws_secret_access_key = ${secret(20)}\n\n\n\n\n\naws_access_key_id = ${id("AKIA", 21)}`, // too far before it
      `commit ${randomChars(40, 22, "0123456789abcdef")} rotated ${id("AKIA", 23)}`, // a git commit id before it
      `key ${id("AKIA", 11)} was rotated in commit ${randomChars(40, 12, "0123456789abcdef")}`, // a git commit id
      `${id("AKIA", 13)}\nsecret: ${secret(14)}${randomChars(4, 15)}`, // a 44-character run, not a secret key
      "aws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", // AWS's documented example
    ],
  }),
};
export default rule;
