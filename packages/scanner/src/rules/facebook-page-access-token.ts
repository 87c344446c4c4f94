import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { shannonEntropy } from "../rule-helpers/entropy.js";

/**
 * Meta (Facebook) Graph API access token (user, page, system-user): `EAA` + app marker + at least
 * 97 more base62 characters (about 100 to 300 in all). Meta for Developers, "Access tokens"
 * (https://developers.facebook.com/docs/facebook-login/guides/access-tokens); gitleaks
 * `facebook-page-access-token`. Square's `EAAA` tokens are 64 characters and do not reach the
 * minimum length; base64 blobs are excluded by the `+`/`/` boundaries.
 */
const rule: Rule = {
  id: "facebook-page-access-token",
  label: "Meta (Facebook) access token",
  prefixes: ["EAA"],
  pattern: /EAA(?<body>[A-Za-z0-9]{97,600})/y,
  validate: (v) => /\d/.test(v) && /[a-z]/.test(v) && /[A-Z]/.test(v) && shannonEntropy(v) >= 4,
  examples: () => ({
    positive: [`FACEBOOK_TOKEN=EAAM${randomChars(180, 821)}`, `value: "EAACEdEose0cBA${randomChars(100, 822)}"`],
    negative: [
      `eaaa${randomChars(36, 823, ALPHABETS.hex)}`, // lower-case hex
      `EAAA${randomChars(60, 824, ALPHABETS.base64url)}`.replace(/[-_]/g, "x"), // Square-sized: too short
      `EAA${"A".repeat(120)}`, // zero bytes
    ],
  }),
};
export default rule;
