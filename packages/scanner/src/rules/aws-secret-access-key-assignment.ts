import { randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";

/**
 * AWS secret access key assigned to its own name, without its key ID nearby (try15 F3; secretlint's
 * `aws` rule reports the same): `aws_secret_access_key = <40>` (`~/.aws/credentials`),
 * `AWS_SECRET_ACCESS_KEY=<40>` (environment, `.env`, `docker run -e`), `"SecretAccessKey": "<40>"`
 * (`aws iam create-access-key` JSON), `secretAccessKey: '<40>'` (SDK for JavaScript config). The name
 * is `secret_access_key`, `SECRET_ACCESS_KEY`, `SecretAccessKey` or `secretAccessKey`, optionally
 * after an identifier part of up to 32 characters (`aws_`, `TF_VAR_aws_`, `MINIO_`: an S3-compatible
 * service's key is a credential too), optionally quoted, then `=`, `:` or `=>` with up to 4 spaces on each side, then
 * the value, optionally quoted: exactly 40 characters of `[A-Za-z0-9/+]` (30 random bytes, base64).
 * The finding is the value. As for the pair rule (`aws-secret-access-key`, which wins where both
 * report the same value), lower-case hex and values without both letter cases and a digit are not
 * reported, nor AWS's documented example key (examples.ts).
 * Format: AWS SDKs and Tools Reference Guide, "Shared config and credentials files" and
 * "Environment variables" (https://docs.aws.amazon.com/sdkref/latest/guide/feature-static-credentials.html).
 */
const NAMES = ["secret_access_key", "SECRET_ACCESS_KEY", "SecretAccessKey", "secretAccessKey"];
const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const secret = (seed: number): string => randomChars(40, seed, BASE64);

const rule: Rule = {
  id: "aws-secret-access-key-assignment",
  label: "AWS secret access key (assigned to its name)",
  prefixes: NAMES,
  pattern: new RegExp(
    String.raw`(?<=(?<lead>[A-Za-z0-9_]{0,32}))(?:${NAMES.join("|")})["']?[ \t]{0,4}(?:=>|=|:)[ \t]{0,4}["']?(?<secret>[A-Za-z0-9/+]{40})`,
    "y",
  ),
  yieldsTo: ["aws-secret-access-key"],
  validate: (value) =>
    /[a-z]/.test(value) && /[A-Z]/.test(value) && /[0-9]/.test(value) && isPlausibleSecret(value, { minEntropy: 4, maxSequence: 6 }),
  examples: () => ({
    positive: [
      `[ci]\naws_secret_access_key = ${secret(1)}\n`,
      `export AWS_SECRET_ACCESS_KEY="${secret(2)}"\n`,
      `{ "UserName": "ci", "SecretAccessKey": "${secret(3)}" }`,
      `const s3 = new S3Client({ credentials: { secretAccessKey: '${secret(4)}' } });`,
      `docker run -e MINIO_SECRET_ACCESS_KEY=${secret(5)} minio/minio`,
      `TF_VAR_aws_secret_access_key: ${secret(6)}`,
      `$aws = ['aws_secret_access_key' => '${secret(7)}'];`,
    ],
    negative: [
      "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", // AWS's documented example
      `aws_secret_access_key = ${randomChars(40, 8, "0123456789abcdef")}`, // lower-case hex (a digest)
      `AWS_SECRET_ACCESS_KEY=${secret(9)}${randomChars(4, 10)}`, // a 44-character run, not a secret key
      "AWS_SECRET_ACCESS_KEY=${AWS_SECRET_ACCESS_KEY}", // a template
      `aws_secret_access_key = <your secret key>`, // a placeholder
      `AWS_SECRET_ACCESS_KEY_FILE=/run/secrets/${secret(11).replace(/[/+]/g, "x").slice(0, 20)}`, // another name
      `See the secretAccessKey field, then ${secret(12)} elsewhere`, // not assigned
    ],
  }),
};
export default rule;
