import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";

/**
 * Amazon Bedrock short-term API key: `bedrock-api-key-` + base64 of a presigned URL that starts
 * `bedrock.amazonaws.com/?Action=CallWithBearerToken&…`, so the key always starts
 * `bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t`; we require at least 100 more base64 characters
 * (the signed query string), so the bare prefix in documentation is not reported.
 * Format: AWS Bedrock User Guide, "Generate Amazon Bedrock API keys" / aws-bedrock-token-generator
 * (https://docs.aws.amazon.com/bedrock/latest/userguide/api-keys-generate.html);
 * gitleaks rule `aws-amazon-bedrock-api-key-short-lived`.
 */
const HEAD = "bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t";
const key = (seed: number): string => HEAD + "Lz9BY3Rpb249Q2FsbFdpdGhCZWFyZXJUb2tlbi" + randomChars(600, seed, ALPHABETS.base64.slice(0, 62)) + "=";

const rule: Rule = {
  id: "aws-amazon-bedrock-api-key-short-lived",
  label: "Amazon Bedrock API key (short-term)",
  prefixes: [HEAD],
  pattern: /bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t[A-Za-z0-9+/]{100,4000}={0,2}/y,
  validate: (value) => isPlausibleSecret(value.slice(HEAD.length), { maxRun: 10 }),
  examples: () => ({
    positive: [`AWS_BEARER_TOKEN_BEDROCK=${key(1)}`, `{"apiKey": "${key(2)}"}`],
    negative: [
      `${HEAD}...`, // truncated documentation sample: no signed query string
      `bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29x${randomChars(200, 3)}`, // wrong encoded host
      `my-bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t${randomChars(200, 4)}`, // prefix glued to a longer identifier
    ],
  }),
};
export default rule;
