import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * Square access token: `EAAA` + 60 base64url characters (current) or legacy `sq0atp-` + 22
 * characters. Square developer docs, "Access tokens and other credentials"
 * (https://developer.squareup.com/docs/build-basics/access-tokens); gitleaks `square-access-token`.
 * A base64 blob that happens to contain `EAAA` does not match: the boundary excludes `+`, `/`, `=`.
 */
const rule: Rule = {
  id: "square-access-token",
  label: "Square access token",
  prefixes: ["EAAA", "sq0atp-"],
  pattern: /(?:EAAA(?<body>[A-Za-z0-9_-]{60})|sq0atp-[A-Za-z0-9_-]{22,43})/y,
  // The legacy form has no `secret` group, so the validator sees the whole match there.
  validate: (v) => looksRandom(v.startsWith("sq0atp-") ? v.slice(7) : v, 2.8),
  examples: () => ({
    positive: [
      `SQUARE_ACCESS_TOKEN=EAAA${randomChars(60, 211, ALPHABETS.base64url)}`,
      `token=sq0atp-${randomChars(22, 212, ALPHABETS.base64url)}`,
    ],
    negative: [
      "aws-cli@sha256:eaaa7b11777babe28e6133a8b19ff71cea687e0d7f05158dee95a71f76ce3d00", // lower case in a digest
      `MIIB+EAAA${randomChars(60, 213, ALPHABETS.base64url)}`, // inside a base64 blob
      `EAAA${"A".repeat(60)}`, // zero bytes, not a token
    ],
  }),
};
export default rule;
