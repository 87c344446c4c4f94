import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * Typeform personal access token: `tfp_` + 59 characters of base64url plus `.` and `=` (two parts
 * joined by `_`). Typeform developer docs, "Personal access token"
 * (https://www.typeform.com/developers/get-started/personal-access-token/); gitleaks `typeform-api-token`.
 */
const rule: Rule = {
  id: "typeform-api-token",
  label: "Typeform personal access token",
  prefixes: ["tfp_"],
  pattern: /tfp_(?<body>[A-Za-z0-9_.=-]{59})/y,
  validate: (v) => looksRandom(v),
  examples: () => ({
    positive: [
      `TYPEFORM_TOKEN=tfp_${randomChars(44, 761, ALPHABETS.base64url)}_${randomChars(14, 762, ALPHABETS.base62)}`,
      `Authorization: Bearer tfp_${randomChars(44, 763, ALPHABETS.base64url)}_${randomChars(14, 764, ALPHABETS.base62)}`,
    ],
    negative: [
      `tfp_${"x".repeat(59)}`, // placeholder
      `tfp_${randomChars(30, 765, ALPHABETS.base64url)}`, // truncated
    ],
  }),
};
export default rule;
