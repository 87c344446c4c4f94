import { randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * PostHog personal API key: `phx_` + about 43 base62 characters; it reads and changes project data.
 * (Project keys `phc_` are public and not matched.) PostHog docs, "Personal API keys"
 * (https://posthog.com/docs/api#private-endpoint-authentication).
 */
const rule: Rule = {
  id: "posthog-personal-api-key",
  label: "PostHog personal API key",
  prefixes: ["phx_"],
  pattern: /phx_(?<body>[A-Za-z0-9]{40,50})/y,
  validate: (v) => looksRandom(v),
  examples: () => ({
    positive: [`POSTHOG_PERSONAL_API_KEY=phx_${randomChars(43, 671)}`, `Authorization: Bearer phx_${randomChars(47, 672)}`],
    negative: [
      `phc_${randomChars(43, 673)}`, // project key: public
      `phx_${"x".repeat(43)}`, // placeholder
      `phx_${randomChars(20, 674)}`, // truncated
    ],
  }),
};
export default rule;
