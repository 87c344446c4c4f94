import { breakChecksum, fakeGithubToken, randomChars, ALPHABETS } from "../fakes.js";
import { hasGithubChecksum } from "../checksums.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";

/**
 * GitHub App tokens:
 * - user-to-server `ghu_` and installation (server-to-server, also the Actions `GITHUB_TOKEN`)
 *   `ghs_`: 30 random base62 + 6-character base62 CRC-32 checksum (a failing checksum is not
 *   reported). GitHub blog, "Behind GitHub's new authentication token formats" (2021-04-05,
 *   https://github.blog/2021-04-05-behind-githubs-new-authentication-token-formats/).
 * - stateless installation tokens `ghs_<installation id>_<JWT>` (GitHub changelog 2025, "GitHub App
 *   installation tokens are becoming stateless"): the JWT's three base64url parts, header `eyJ`.
 * gitleaks rule `github-app-token` (both prefixes).
 */
const jwtPart = (n: number, seed: number): string => randomChars(n, seed, ALPHABETS.base64url);
const statelessToken = (seed: number): string =>
  `ghs_${randomChars(6, seed, ALPHABETS.digits)}_eyJ${jwtPart(33, seed + 1)}.eyJ${jwtPart(120, seed + 2)}.${jwtPart(43, seed + 3)}`;

const CLASSIC = /^gh[su]_[A-Za-z0-9]{36}$/;

const rule: Rule = {
  id: "github-app-token",
  label: "GitHub App token",
  prefixes: ["ghu_", "ghs_"],
  pattern:
    /(?:ghu_[A-Za-z0-9]{36}|ghs_(?:[A-Za-z0-9]{36}|[0-9]{1,20}_eyJ[A-Za-z0-9_-]{8,2048}\.[A-Za-z0-9_-]{8,8192}\.[A-Za-z0-9_-]{16,2048}))/y,
  validate: (value) =>
    CLASSIC.test(value) ? hasGithubChecksum(value) && isPlausibleSecret(value.slice(4)) : isPlausibleSecret(value.slice(-40)),
  examples: () => ({
    positive: [
      `GH_TOKEN=${fakeGithubToken("ghs_", 1)}`,
      `token: ${fakeGithubToken("ghu_", 2)}`,
      `Authorization: token ${statelessToken(3)}`,
    ],
    negative: [
      `ghu_${"x".repeat(36)}`, // placeholder: one repeated character
      `ghs_${"x".repeat(36)}`, // placeholder: one repeated character
      breakChecksum(fakeGithubToken("ghs_", 4)), // wrong checksum
      `ghs_12345_eyJhbGciOi.eyJ`, // truncated stateless token: no signature part
    ],
  }),
};
export default rule;
