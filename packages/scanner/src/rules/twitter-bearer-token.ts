import { randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { shannonEntropy } from "../rule-helpers/entropy.js";

/**
 * X (Twitter) API app-only bearer token: a run of about 21 `A`s (zero bytes of its base64 header)
 * followed by 70 to 120 URL-encoded base64 characters (`%2B`, `%3D`). X developer docs,
 * "OAuth 2.0 Bearer Token" (https://developer.x.com/en/docs/authentication/oauth-2-0/bearer-tokens);
 * gitleaks `twitter-bearer-token` (which also asks for the word "twitter" nearby). A base64 run of
 * zero bytes does not pass: the rest must be high-entropy and mix digits, upper and lower case.
 */
const rule: Rule = {
  id: "twitter-bearer-token",
  label: "X (Twitter) bearer token",
  prefixes: ["AAAAAAAAAAAAAAAAAAAA"],
  // The lookahead first: a run of A's shorter than a token (base64 of zero bytes, common in binary
  // blobs) is refused in one read, not once per backtrack of A{20,24} (~3x cheaper per attempt).
  pattern: /(?=[A-Za-z0-9%]{90})A{20,24}(?<body>[A-Za-z0-9%]{70,120})/y,
  validate: (v) => /\d/.test(v) && /[a-z]/.test(v) && /[A-Z]/.test(v) && shannonEntropy(v) >= 4,
  examples: () => ({
    positive: [
      `TWITTER_BEARER_TOKEN=${"A".repeat(21)}M${randomChars(4, 811)}${"A".repeat(7)}0%2B${randomChars(30, 812)}%3D${randomChars(50, 813)}`,
      `Authorization: Bearer ${"A".repeat(22)}${randomChars(90, 814)}`,
    ],
    negative: [
      "A".repeat(120), // base64 of zero bytes
      `${"A".repeat(22)}${randomChars(30, 815)}`, // truncated
      `${"A".repeat(22)}${"AB".repeat(45)}`, // low entropy
    ],
  }),
};
export default rule;
