import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * Figma personal access token: `figd_` + about 40 base64url characters (38 to 64 accepted). Figma
 * developer docs, "Access tokens" (https://www.figma.com/developers/api#access-tokens); secretlint
 * `figma` rule.
 */
const rule: Rule = {
  id: "figma-personal-access-token",
  label: "Figma personal access token",
  prefixes: ["figd_"],
  pattern: /figd_(?<body>[A-Za-z0-9_-]{38,64})/y,
  validate: (v) => looksRandom(v),
  examples: () => ({
    positive: [`FIGMA_TOKEN=figd_${randomChars(40, 751, ALPHABETS.base64url)}`, `"X-Figma-Token": "figd_${randomChars(43, 752, ALPHABETS.base64url)}"`],
    negative: [
      "figd_abc", // truncated
      `figd_${"x".repeat(40)}`, // placeholder
      `configd_${randomChars(40, 753, ALPHABETS.base64url)}`, // prefix glued inside a word
    ],
  }),
};
export default rule;
