// STUB: test-token generators. Tokens are generated at run time, never literal in test files.
import { randomBytes } from "node:crypto";
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
export function randomBase62(length: number): string {
  const bytes = randomBytes(length);
  let s = "";
  for (let i = 0; i < length; i++) s += BASE62[bytes[i]! % 62];
  return s;
}
/** A fake GitHub classic PAT in the documented shape (`ghp_` + 36 base62, last 6 a CRC32 checksum). */
export function fakeGithubPat(): string {
  return "ghp_" + randomBase62(36);
}
