import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * Firecrawl API key: `fc-` + 32 characters of `[a-f0-9]`. Firecrawl docs, "Authentication" (https://docs.firecrawl.dev/api-reference/introduction#authentication); 32 lower-case hex keeps the short prefix distinct.
 */
const rule: Rule = {
  id: "firecrawl-api-key",
  label: "Firecrawl API key",
  prefixes: ["fc-"],
  pattern: /fc-(?<body>[a-f0-9]{32})/y,
  validate: (v) => looksRandom(v),
  examples: () => ({
    positive: [`API_KEY=fc-${randomChars(32, 4071, ALPHABETS.hex)}`, `"token": "fc-${randomChars(32, 4072, ALPHABETS.hex)}"`],
    negative: [
      `fc-${"x".repeat(32)}`, // placeholder
      `fc-${randomChars(32 - 8, 4073, ALPHABETS.hex)}`, // truncated
      `fc-${randomChars(32 + 4, 4074, ALPHABETS.hex)}`, // too long: part of something else
      `wordfc-${randomChars(32, 4075, ALPHABETS.hex)}`, // prefix glued inside a word
    ],
  }),
};
export default rule;
