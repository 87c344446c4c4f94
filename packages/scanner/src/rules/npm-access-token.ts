import { breakChecksum, fakeNpmToken, randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { hasNpmChecksum } from "../checksums.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";

/**
 * npm access token (granular or classic): `npm_` + 30 random base62 + 6-character base62 CRC-32
 * checksum of the random part; a token whose checksum fails is not reported.
 * Format: GitHub blog, "Announcing npm's new access token format" (2021-09-23,
 * https://github.blog/2021-09-23-announcing-npms-new-access-token-format/); gitleaks rule `npm-access-token`.
 */
const token = (seed: number): string => fakeNpmToken(seed);

const rule: Rule = {
  id: "npm-access-token",
  label: "npm access token",
  prefixes: ["npm_"],
  pattern: /npm_[A-Za-z0-9]{36}/y,
  checksum: true,
  validate: (value) => hasNpmChecksum(value) && isPlausibleSecret(value.slice(4)),
  examples: () => ({
    positive: [
      `//registry.npmjs.org/:_authToken=${token(1)}`,
      `NPM_TOKEN=${token(2)}`,
      `"npmToken": "${token(3)}"`,
    ],
    negative: [
      `npm_${"x".repeat(36)}`, // placeholder: one repeated character
      breakChecksum(token(4)), // wrong checksum
      `npm_package_config_${randomChars(20, 5)}`, // an npm environment variable name, not a token
    ],
  }),
};
export default rule;
