import { randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * EasyPost production API key: `EZAK` + 54 base62 characters. EasyPost docs, "Authentication"
 * (https://docs.easypost.com/docs/authentication); gitleaks `easypost-api-token`. Base64 text containing
 * `EZAK` does not match: the boundaries exclude `+` and `/` (and `=` after).
 */
const rule: Rule = {
  id: "easypost-api-token",
  label: "EasyPost production API key",
  prefixes: ["EZAK"],
  pattern: /EZAK(?<body>[A-Za-z0-9]{54})/y,
  validate: (v) => looksRandom(v),
  examples: () => ({
    positive: [`EASYPOST_API_KEY=EZAK${randomChars(54, 1981)}`, `client = easypost.EasyPostClient("EZAK${randomChars(54, 1982)}")`],
    negative: [
      `...6wqX6fNUXA/rYqRvfQ+EZAK${randomChars(54, 1983)}/3VmWq/edti6...`, // inside base64 data
      `EZAK${"X".repeat(54)}`, // placeholder
      `EZAK${randomChars(40, 1984)}`, // truncated
    ],
  }),
};
export default rule;
