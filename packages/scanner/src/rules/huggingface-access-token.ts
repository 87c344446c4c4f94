import { randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { hasMixedCase, looksRandom } from "../rule-helpers/entropy.js";

const LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/**
 * Hugging Face access token: `hf_` + 34 ASCII letters. Hugging Face docs, "User access tokens"
 * (https://huggingface.co/docs/hub/security-tokens); gitleaks `huggingface-access-token`. Identifiers such as
 * `hf_requiredCharacteristicTypes…` are camelCase words; real tokens mix cases about evenly,
 * so at least 6 upper- and 6 lower-case letters are required.
 */
const rule: Rule = {
  id: "huggingface-access-token",
  label: "Hugging Face access token",
  prefixes: ["hf_"],
  pattern: /hf_(?<body>[A-Za-z]{34})/y,
  validate: (v) => hasMixedCase(v, 6) && looksRandom(v, 3.5),
  examples: () => ({
    positive: [
      `huggingface-cli login --token hf_${randomChars(34, 4081, LETTERS)}`,
      `HF_TOKEN="hf_${randomChars(34, 4082, LETTERS)}"`,
    ],
    negative: [
      `hf_${"x".repeat(34)}`, // placeholder
      "- (id)hf_requiredCharacteristicTypesForDisplayMetadata;", // identifier, too long
      `xhf_${randomChars(34, 4083, LETTERS)}`, // prefix glued inside a word
      `hf_${randomChars(33, 4084, LETTERS)}`, // one letter short
    ],
  }),
};
export default rule;
