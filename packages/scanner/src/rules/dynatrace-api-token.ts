import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * Dynatrace API token: `dt0c01.` + 24-character public id + `.` + 64-character secret (upper-case
 * base32-like alphanumerics). Dynatrace docs, "Access tokens: token format"
 * (https://docs.dynatrace.com/docs/dynatrace-api/basics/dynatrace-api-authentication#token-format);
 * gitleaks `dynatrace-api-token`.
 */
const rule: Rule = {
  id: "dynatrace-api-token",
  label: "Dynatrace API token",
  prefixes: ["dt0c01."],
  pattern: /dt0c01\.[A-Za-z0-9]{24}\.(?<body>[A-Za-z0-9]{64})/y,
  validate: (v) => looksRandom(v),
  examples: () => ({
    positive: [
      `DT_API_TOKEN=dt0c01.${randomChars(24, 611, ALPHABETS.upperAlnum)}.${randomChars(64, 612, ALPHABETS.upperAlnum)}`,
      `Authorization: Api-Token dt0c01.${randomChars(24, 613, ALPHABETS.upperAlnum)}.${randomChars(64, 614, ALPHABETS.upperAlnum)}`,
    ],
    negative: [
      `dt0c01.${randomChars(24, 615, ALPHABETS.upperAlnum)}.${"X".repeat(64)}`, // placeholder secret
      `dt0c01.${randomChars(24, 616, ALPHABETS.upperAlnum)}`, // public id only
      "dt0c01.ABC123.XYZ", // truncated
    ],
  }),
};
export default rule;
