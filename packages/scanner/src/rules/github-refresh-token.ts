import { breakChecksum, fakeGithubToken } from "../fakes.js";
import { hasGithubChecksum } from "../checksums.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";

/**
 * GitHub App user-to-server refresh token: `ghr_` + 30 random base62 + 6-character base62 CRC-32
 * checksum. A token whose checksum fails is not reported.
 * Format: GitHub blog, "Behind GitHub's new authentication token formats" (2021-04-05,
 * https://github.blog/2021-04-05-behind-githubs-new-authentication-token-formats/);
 * gitleaks rule `github-refresh-token`.
 */
const rule: Rule = {
  id: "github-refresh-token",
  label: "GitHub refresh token",
  prefixes: ["ghr_"],
  pattern: /ghr_[A-Za-z0-9]{36}/y,
  checksum: true,
  validate: (value) => hasGithubChecksum(value) && isPlausibleSecret(value.slice(4)),
  examples: () => ({
    positive: [`refresh_token=${fakeGithubToken("ghr_", 1)}`, `"refresh_token": "${fakeGithubToken("ghr_", 2)}"`],
    negative: [
      `ghr_${"x".repeat(36)}`, // placeholder: one repeated character
      breakChecksum(fakeGithubToken("ghr_", 3)), // wrong checksum
      `${fakeGithubToken("ghr_", 4)}Z`, // too long: a 37th character follows
    ],
  }),
};
export default rule;
