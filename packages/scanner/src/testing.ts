// Test-token generators for other packages' tests. Tokens are generated at run time.
import { randomChars } from "./fakes.js";
export { randomChars, ALPHABETS } from "./fakes.js";

/** A fake GitHub classic PAT in the documented shape (`ghp_` + 36 base62). STUB: checksum to come. */
export function fakeGithubPat(seed = Date.now() & 0xffffff): string {
  return "ghp_" + randomChars(36, seed);
}
