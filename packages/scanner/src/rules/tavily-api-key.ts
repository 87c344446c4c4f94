import { randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * Tavily API key: `tvly-` (optionally `tvly-dev-` / `tvly-prod-`) + 32 base62 characters. Tavily
 * docs, "API credits and keys" (https://docs.tavily.com/documentation/api-reference/introduction).
 */
const rule: Rule = {
  id: "tavily-api-key",
  label: "Tavily API key",
  prefixes: ["tvly-"],
  pattern: /tvly-(?:dev-|prod-)?(?<body>[A-Za-z0-9]{32})/y,
  validate: (v) => looksRandom(v),
  examples: () => ({
    positive: [`TAVILY_API_KEY=tvly-${randomChars(32, 511)}`, `TavilyClient(api_key="tvly-dev-${randomChars(32, 512)}")`],
    negative: [
      "TAVILY_API_KEY=tvly-YOUR_API_KEY", // placeholder
      `tvly-${randomChars(20, 513)}`, // truncated
      `tvly-${"x".repeat(32)}`, // placeholder run
    ],
  }),
};
export default rule;
