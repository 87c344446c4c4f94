/**
 * Checksums that vendors embed in their token formats, for rule validators and fake generators.
 *
 * GitHub (`ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_`) and npm (`npm_`) tokens are
 * `<prefix>` + 30 random base62 characters + 6 checksum characters, where the checksum is the
 * CRC-32 (IEEE 802.3, as zlib) of the 30 random characters only (the prefix is NOT included),
 * written in base62 with the alphabet `0-9A-Za-z` and left-padded with `0` to 6 characters.
 * Sources: https://github.blog/2021-04-05-behind-githubs-new-authentication-token-formats/ ,
 * https://github.blog/2021-09-23-announcing-npms-new-access-token-format/ ; verified against the
 * real-format samples `ghp_wWPw…` and `npm_qkJa…` of the secretlint test suite (peer corpus).
 */

/** Base62 alphabet in GitHub's order: digits, upper case, lower case. */
export const BASE62_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

const CRC_TABLE: Uint32Array = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/**
 * CRC-32 (IEEE, reflected, polynomial 0xEDB88320; same as zlib/`node:zlib.crc32`) of `str`'s UTF-8
 * bytes. Returns an unsigned 32-bit integer.
 */
export function crc32(str: string): number {
  const bytes = Buffer.from(str, "utf8");
  let crc = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) crc = (crc >>> 8) ^ CRC_TABLE[(crc ^ bytes[i]!) & 0xff]!;
  return (crc ^ 0xffffffff) >>> 0;
}

/**
 * `n` (a non-negative safe integer) in base62 (alphabet {@link BASE62_ALPHABET}), left-padded with
 * `0` to at least `width` characters. Throws RangeError on a negative or non-integer `n`.
 */
export function base62(n: number, width = 0): string {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError("base62: n must be a non-negative safe integer");
  let s = "";
  do {
    s = BASE62_ALPHABET[n % 62]! + s;
    n = Math.floor(n / 62);
  } while (n > 0);
  return s.padStart(width, "0");
}

/** The 6-character checksum GitHub/npm append to `random` (the 30 random characters). */
export function githubChecksum(random: string): string {
  return base62(crc32(random), 6);
}

const CHECKSUM_TOKEN = /^(?:gh[pousr]|npm)_([A-Za-z0-9]{30})([A-Za-z0-9]{6})$/;

/**
 * True when `token` is `ghp_|gho_|ghu_|ghs_|ghr_|npm_` + 30 base62 characters + the 6-character
 * base62 CRC-32 of those 30 characters. Any other shape (length, prefix, alphabet) gives false.
 */
export function hasGithubChecksum(token: string): boolean {
  const m = CHECKSUM_TOKEN.exec(token);
  return m !== null && githubChecksum(m[1]!) === m[2];
}

/** Alias of {@link hasGithubChecksum} for npm tokens (`npm_` + 30 + 6; same checksum scheme). */
export const hasNpmChecksum = hasGithubChecksum;
