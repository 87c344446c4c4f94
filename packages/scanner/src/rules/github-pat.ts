import { breakChecksum, fakeGithubToken } from "../fakes.js";
import { hasGithubChecksum } from "../checksums.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";

/**
 * GitHub personal access token (classic): `ghp_` + 30 random base62 + 6-character base62 CRC-32
 * checksum of the random part. A token whose checksum fails is not reported.
 * Format: GitHub blog, "Behind GitHub's new authentication token formats" (2021-04-05,
 * https://github.blog/2021-04-05-behind-githubs-new-authentication-token-formats/) and GitHub docs,
 * "About authentication to GitHub" (token prefixes); gitleaks rule `github-pat`.
 */
const rule: Rule = {
  id: "github-pat",
  label: "GitHub personal access token (classic)",
  prefixes: ["ghp_"],
  pattern: /ghp_[A-Za-z0-9]{36}/y,
  checksum: true,
  validate: (value) => hasGithubChecksum(value) && isPlausibleSecret(value.slice(4)),
  examples: () => ({
    positive: [`GITHUB_TOKEN=${fakeGithubToken("ghp_", 1)}`, `git clone https://${fakeGithubToken("ghp_", 2)}@github.com/o/r`],
    negative: [
      `ghp_${"x".repeat(36)}`, // placeholder: one repeated character
      breakChecksum(fakeGithubToken("ghp_", 3)), // wrong checksum
      fakeGithubToken("ghp_", 4).slice(0, -1), // truncated: 35 characters
      `ghp_${fakeGithubToken("ghp_", 5).slice(4)}x`, // glued to a longer word after it
    ],
  }),
};
export default rule;
