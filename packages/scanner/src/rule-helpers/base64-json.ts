/**
 * Decoding helpers for tokens that embed base64 JSON (JWTs, Grafana, Sentry, 1Password, Mapbox):
 * a validator decodes the leading part and checks that it is the JSON object the vendor documents.
 * Pure functions, no state.
 */

/**
 * Decodes base64 or base64url text (padding optional; other characters are dropped) to a latin1
 * string. Only the first `maxChars` input characters are decoded (default: all), so a validator
 * can look at a token's head without decoding kilobytes.
 */
export function decodeBase64(text: string, maxChars = Infinity): string {
  let s = text.slice(0, maxChars === Infinity ? text.length : maxChars).replace(/[^A-Za-z0-9+/_-]/g, "");
  s = s.slice(0, s.length - (s.length % 4));
  return Buffer.from(s.replace(/-/g, "+").replace(/_/g, "/"), "base64").toString("latin1");
}

/**
 * True if `text` (base64/base64url) decodes to something that starts like a JSON object with a
 * string key, `{"key":`, and, when given, mentions every one of `keys` as `"key"`.
 */
export function isBase64JsonObject(text: string, keys: readonly string[] = [], maxChars = Infinity): boolean {
  const decoded = decodeBase64(text, maxChars);
  if (!/^\{\s*"[A-Za-z0-9_]{1,40}"\s*:/.test(decoded)) return false;
  return keys.every((k) => decoded.includes(`"${k}"`));
}
