import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * Contentful personal access token: `CFPAT-` + 43 characters of `[A-Za-z0-9_-]`. Contentful docs, "Personal access tokens" (https://www.contentful.com/developers/docs/references/authentication/#the-management-api).
 */
const rule: Rule = {
  id: "contentful-personal-access-token",
  label: "Contentful personal access token",
  prefixes: ["CFPAT-"],
  pattern: /CFPAT-(?<body>[A-Za-z0-9_-]{43})/y,
  validate: (v) => looksRandom(v),
  examples: () => ({
    positive: [`KEY=CFPAT-${randomChars(43, 7021, ALPHABETS.base64url)}`, `"token": "CFPAT-${randomChars(43, 7022, ALPHABETS.base64url)}"`],
    negative: [
      `CFPAT-${"0".repeat(43)}`, // zeroed placeholder
      `CFPAT-${randomChars(43 - 6, 7023, ALPHABETS.base64url)}`, // truncated
      `CFPAT-${randomChars(43 + 4, 7024, ALPHABETS.base64url)}`, // too long: part of something else
      `wordCFPAT-${randomChars(43, 7025, ALPHABETS.base64url)}`, // prefix glued inside a word
    ],
  }),
};
export default rule;
