import { ALPHABETS, randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";

/**
 * Harness personal (`pat.`) or service account (`sat.`) token: prefix + account id (22) + `.` + token id (24)
 * + `.` + secret (20). Format: Harness docs, "Add and manage API keys"
 * (https://developer.harness.io/docs/platform/automation/api/add-and-manage-api-keys/); gitleaks rule `harness-api-key`.
 */
const token = (seed: number): string =>
  `pat.${randomChars(22, seed, ALPHABETS.base64url)}.${randomChars(24, seed + 1)}.${randomChars(20, seed + 2)}`;

const rule: Rule = {
  id: "harness-api-key",
  label: "Harness API key",
  prefixes: ["pat.", "sat."],
  pattern: /(?:pat|sat)\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}/y,
  validate: (value) => isPlausibleSecret(value.slice(value.lastIndexOf(".") + 1)),
  examples: () => ({
    positive: [
      `HARNESS_API_KEY=${token(1)}`,
      `{"token": "${token(2)}"}`,
      `export HARNESS_API_KEY='${token(5)}'`,
    ],
    negative: [
      `pat.${"X".repeat(22)}.${"X".repeat(24)}.${"X".repeat(20)}`, // placeholder: one repeated character
      token(3).slice(0, -1), // truncated: 19 characters in the last part
      `compat.${randomChars(22, 4)}.${randomChars(24, 5)}.${randomChars(20, 6)}`, // prefix glued to the end of a longer word
    ],
  }),
};
export default rule;
