// Test-token generators for other packages' tests. Tokens are generated at run time.
import { fakeGithubToken } from "./fakes.js";
export { randomChars, ALPHABETS, fakeGithubToken, fakeNpmToken, breakChecksum } from "./fakes.js";
export { crc32, base62, hasGithubChecksum } from "./checksums.js";

/**
 * A fake GitHub classic PAT in the documented shape: `ghp_` + 30 base62 + 6-char base62 CRC-32
 * checksum (valid, so the scanner reports it). Same seed → same token.
 */
export function fakeGithubPat(seed = Date.now() & 0xffffff): string {
  return fakeGithubToken("ghp_", seed);
}
