import { randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * EasyPost test API key: `EZTK` + 54 base62 characters. EasyPost docs, "Authentication"
 * (https://docs.easypost.com/docs/authentication); gitleaks `easypost-test-api-token`. Base64 text containing
 * `EZTK` does not match: the boundaries exclude `+` and `/` (and `=` after).
 */
const rule: Rule = {
  id: "easypost-test-api-token",
  label: "EasyPost test API key",
  prefixes: ["EZTK"],
  pattern: /EZTK(?<body>[A-Za-z0-9]{54})/y,
  validate: (v) => looksRandom(v),
  examples: () => ({
    positive: [`EASYPOST_API_KEY=EZTK${randomChars(54, 2531)}`, `client = easypost.EasyPostClient("EZTK${randomChars(54, 2532)}")`],
    negative: [
      `...6wqX6fNUXA/rYqRvfQ+EZTK${randomChars(54, 2533)}/3VmWq/edti6...`, // inside base64 data
      `EZTK${"X".repeat(54)}`, // placeholder
      `EZTK${randomChars(40, 2534)}`, // truncated
    ],
  }),
};
export default rule;
