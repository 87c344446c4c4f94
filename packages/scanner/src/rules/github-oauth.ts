import { breakChecksum, fakeGithubToken } from "../fakes.js";
import { hasGithubChecksum } from "../checksums.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";

/**
 * GitHub OAuth app user access token: `gho_` + 30 random base62 + 6-character base62 CRC-32
 * checksum. A token whose checksum fails is not reported.
 * Format: GitHub blog, "Behind GitHub's new authentication token formats" (2021-04-05,
 * https://github.blog/2021-04-05-behind-githubs-new-authentication-token-formats/);
 * gitleaks rule `github-oauth`.
 */
const rule: Rule = {
  id: "github-oauth",
  label: "GitHub OAuth access token",
  prefixes: ["gho_"],
  pattern: /gho_[A-Za-z0-9]{36}/y,
  checksum: true,
  validate: (value) => hasGithubChecksum(value) && isPlausibleSecret(value.slice(4)),
  examples: () => ({
    positive: [`oauth_token: ${fakeGithubToken("gho_", 1)}`, `"access_token":"${fakeGithubToken("gho_", 2)}"`],
    negative: [
      `gho_${"x".repeat(36)}`, // placeholder: one repeated character
      breakChecksum(fakeGithubToken("gho_", 3)), // wrong checksum
      `gho_${fakeGithubToken("gho_", 4).slice(4)}_more`, // glued to a longer name after it
    ],
  }),
};
export default rule;
