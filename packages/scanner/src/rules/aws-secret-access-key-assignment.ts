import { randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { LINE_END, LINE_LEAD } from "../rule-helpers/block-lines.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";

/**
 * AWS secret access key assigned to its own name, without its key ID nearby (try15 F3, try16 F3;
 * secretlint's `aws` rule reports the same). The name, in any of the spellings AWS tools use:
 * `secret_access_key` / `SECRET_ACCESS_KEY` (`~/.aws/credentials`, environment, `.env`, `docker run -e`),
 * `SecretAccessKey` / `secretAccessKey` (`aws iam create-access-key` JSON, STS XML, SDK for JavaScript),
 * `secret-access-key` (aws-actions/configure-aws-credentials inputs), `Secret Access Key` /
 * `Secret access key` / `secret access key` (the console's CSV header, prose in notes); optionally after
 * an identifier part of up to 32 characters (`aws_`, `TF_VAR_aws_`, `MINIO_`: an S3-compatible
 * service's key is a credential too), optionally quoted. Then one of these layouts, each with up
 * to 4 spaces or tabs around its separator:
 * - `=`, `:`, `:=`, `=>` (assignments, YAML, Go, PHP), the value on the same line or, after `:`/`=`,
 *   on the next line (YAML block);
 * - `|` (a Markdown table row: `| AWS_SECRET_ACCESS_KEY | <40> |`);
 * - `>` (XML: `<SecretAccessKey><40></SecretAccessKey>`);
 * - whitespace alone (`aws configure set aws_secret_access_key <40>`, the AWS CLI's documented command);
 * - a Kubernetes env entry: `- name: AWS_SECRET_ACCESS_KEY` then `value: <40>` on the next line.
 * "The next line" is read as for key blocks (rule-helpers/block-lines.ts): after LF, CRLF, a JSON or
 * shell `\n` escape or `<br>`, with the next line's lead (`> `, `# `, `+`, `- `, `1. `) and indentation.
 * Then the value, optionally quoted: exactly 40 characters of `[A-Za-z0-9/+]` (30 random bytes, base64).
 * The finding is the value. As for the pair rule (`aws-secret-access-key`, which wins where both
 * report the same value), lower-case hex and values without both letter cases and a digit are not
 * reported, nor AWS's documented example key (examples.ts). Left out: Terraform's `secret_key = "<40>"`
 * alone (a name any service uses; with its AKIA/ASIA key ID nearby the pair rule reports it).
 * Format: AWS SDKs and Tools Reference Guide, "Shared config and credentials files" and
 * "Environment variables" (https://docs.aws.amazon.com/sdkref/latest/guide/feature-static-credentials.html);
 * AWS CLI `aws configure set`; IAM `CreateAccessKey` response (`SecretAccessKey`).
 */
const NAMES = [
  "secret_access_key",
  "SECRET_ACCESS_KEY",
  "SecretAccessKey",
  "secretAccessKey",
  "secret-access-key",
  "Secret Access Key",
  "Secret access key",
  "secret access key",
];
/** To the next line: its end (LF, CRLF, a JSON `\n`, `<br>`, a table cell's `|`), the next line's lead (`> `, `# `, `- `, `1. `) and indentation. */
const NEXT_LINE = String.raw`${LINE_END}${LINE_LEAD}[ \t]{0,12}`;
const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const secret = (seed: number): string => randomChars(40, seed, BASE64);

const rule: Rule = {
  id: "aws-secret-access-key-assignment",
  label: "AWS secret access key (assigned to its name)",
  prefixes: NAMES,
  pattern: new RegExp(
    String.raw`(?<=(?<lead>[A-Za-z0-9_]{0,32}))(?:${NAMES.join("|")})["']?` +
      String.raw`(?:[ \t]{0,4}(?:=>|:=|=|:)(?:[ \t]{0,4}|${NEXT_LINE})` + // assignment, same or next line
      String.raw`|[ \t]{0,4}\|[ \t]{0,4}|>` + // Markdown table cell, XML element
      String.raw`|(?:${NEXT_LINE}|[ \t]{1,16})value:[ \t]{0,4}` + // Kubernetes env entry
      String.raw`|[ \t]{1,4})` + // whitespace alone (aws configure set)
      String.raw`["']?(?<secret>[A-Za-z0-9/+]{40})`,
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
      `aws configure set aws_secret_access_key ${secret(13)} --profile ci`,
      `| Name | Value |\n|---|---|\n| AWS_SECRET_ACCESS_KEY | ${secret(14)} |\n`,
      `env:\n  - name: AWS_SECRET_ACCESS_KEY\n    value: "${secret(15)}"\n`,
      `with:\n  aws-secret-access-key: ${secret(16)}\n`,
      `<Credentials><SecretAccessKey>${secret(17)}</SecretAccessKey></Credentials>`,
      `AWS Secret Access Key: ${secret(18)}`,
      `secretAccessKey := "${secret(19)}"`,
      `aws_secret_access_key:\n  ${secret(20)}\n`,
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
