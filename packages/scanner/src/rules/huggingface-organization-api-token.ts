import { randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { hasMixedCase, looksRandom } from "../rule-helpers/entropy.js";

const LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/**
 * Hugging Face organization API token: `api_org_` + 34 ASCII letters. Hugging Face docs, "organization API tokens (legacy)"
 * (https://huggingface.co/docs/hub/security-tokens); gitleaks `huggingface-organization-api-token`. Identifiers such as
 * `api_org_requiredCharacteristicTypes…` are camelCase words; real tokens mix cases about evenly,
 * so at least 6 upper- and 6 lower-case letters are required.
 */
const rule: Rule = {
  id: "huggingface-organization-api-token",
  label: "Hugging Face organization API token",
  prefixes: ["api_org_"],
  pattern: /api_org_(?<body>[A-Za-z]{34})/y,
  validate: (v) => hasMixedCase(v, 6) && looksRandom(v, 3.5),
  examples: () => ({
    positive: [
      `huggingface-cli login --token api_org_${randomChars(34, 5781, LETTERS)}`,
      `HF_TOKEN="api_org_${randomChars(34, 5782, LETTERS)}"`,
    ],
    negative: [
      `api_org_${"x".repeat(34)}`, // placeholder
      "- (id)api_org_requiredCharacteristicTypesForDisplayMetadata;", // identifier, too long
      `xapi_org_${randomChars(34, 5783, LETTERS)}`, // prefix glued inside a word
      `api_org_${randomChars(33, 5784, LETTERS)}`, // one letter short
    ],
  }),
};
export default rule;
