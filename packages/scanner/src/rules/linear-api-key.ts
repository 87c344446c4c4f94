import { randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * Linear personal API key: `lin_api_` + 40 base62 characters (up to 44 accepted). Linear developers,
 * "API and webhooks: personal API keys" (https://linear.app/developers/graphql#personal-api-keys);
 * gitleaks `linear-api-key`.
 */
const rule: Rule = {
  id: "linear-api-key",
  label: "Linear API key",
  prefixes: ["lin_api_"],
  pattern: /lin_api_(?<body>[A-Za-z0-9]{40,44})/y,
  validate: (v) => looksRandom(v),
  examples: () => ({
    positive: [`LINEAR_API_KEY=lin_api_${randomChars(40, 711)}`, `Authorization: lin_api_${randomChars(40, 712)}`],
    negative: [
      `lin_api_${"x".repeat(40)}`, // placeholder
      `lin_api_${randomChars(30, 713)}`, // truncated
      `mylin_api_${randomChars(40, 714)}`, // prefix glued inside a word
    ],
  }),
};
export default rule;
