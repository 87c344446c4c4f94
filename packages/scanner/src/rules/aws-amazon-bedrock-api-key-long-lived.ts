import { randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { decodeBase64 } from "../rule-helpers/base64-json.js";
import { isPlaceholder } from "../rule-helpers/placeholder.js";

/**
 * Amazon Bedrock long-term API key: `ABSK` + base64 of `BedrockAPIKey-<identity>:<secret>`, so it
 * always starts `ABSKQmVkcm9ja0FQSUtleS1` (base64 of `BedrockAPIKey-`); about 130 characters.
 * The validator decodes the body and requires the `<identity>:<secret>` shape, so `…EXAMPLE…`
 * fillers and truncated keys are not reported.
 * Format: AWS Bedrock User Guide, "Generate Amazon Bedrock API keys"
 * (https://docs.aws.amazon.com/bedrock/latest/userguide/api-keys-generate.html);
 * gitleaks rule `aws-amazon-bedrock-api-key-long-lived`.
 */
const key = (seed: number): string => {
  const identity = `${randomChars(4, seed, "abcdefghijklmnopqrstuvwxyz")}-at-${randomChars(12, seed + 1, "0123456789")}`;
  const secret = Buffer.from(randomChars(32, seed + 2), "latin1").toString("base64");
  return "ABSK" + Buffer.from(`BedrockAPIKey-${identity}:${secret}`, "latin1").toString("base64");
};

const DECODED = /^BedrockAPIKey-[\x21-\x39\x3b-\x7e]{1,64}:[\x21-\x7e]{16,}$/;

const rule: Rule = {
  id: "aws-amazon-bedrock-api-key-long-lived",
  label: "Amazon Bedrock API key (long-term)",
  prefixes: ["ABSKQmVkcm9ja0FQSUtleS1"],
  pattern: /ABSKQmVkcm9ja0FQSUtleS1[A-Za-z0-9+/]{60,200}={0,2}/y,
  validate: (value) => !isPlaceholder(value.slice(23), { minEntropy: 3, maxRun: 8 }) && DECODED.test(decodeBase64(value.slice(4))),
  examples: () => ({
    positive: [`AWS_BEARER_TOKEN_BEDROCK=${key(1)}`, `api_key: "${key(5)}"`],
    negative: [
      `ABSKQmVkcm9ja0FQSUtleS1${"EXAMPLE".repeat(15)}=`, // placeholder filler, not an identity:secret pair
      key(9).slice(0, 60), // truncated: the decoded text has no secret part
      `X${key(13)}`, // prefix glued to the end of a longer base64 string
    ],
  }),
};
export default rule;
