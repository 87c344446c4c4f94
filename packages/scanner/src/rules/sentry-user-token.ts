import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * Sentry user auth token: `sntryu_` + 64 characters of `[a-f0-9]`. Sentry docs, "Auth tokens" (https://docs.sentry.io/account/auth-tokens/#user-auth-tokens); gitleaks `sentry-user-token`.
 */
const rule: Rule = {
  id: "sentry-user-token",
  label: "Sentry user auth token",
  prefixes: ["sntryu_"],
  pattern: /sntryu_(?<body>[a-f0-9]{64})/y,
  validate: (v) => looksRandom(v),
  examples: () => ({
    positive: [`KEY=sntryu_${randomChars(64, 6041, ALPHABETS.hex)}`, `"token": "sntryu_${randomChars(64, 6042, ALPHABETS.hex)}"`],
    negative: [
      `sntryu_${"0".repeat(64)}`, // zeroed placeholder
      `sntryu_${randomChars(64 - 6, 6043, ALPHABETS.hex)}`, // truncated
      `sntryu_${randomChars(64 + 4, 6044, ALPHABETS.hex)}`, // too long: part of something else
      `wordsntryu_${randomChars(64, 6045, ALPHABETS.hex)}`, // prefix glued inside a word
    ],
  }),
};
export default rule;
