/**
 * Placeholder detection for `scheme://user:password@host` credentials (rules
 * `database-url-credentials`, `http-url-credentials`, `url-credentials`). Input is the
 * `user:password` text between `://` and the last `@` before the host; pure functions.
 */

/** Passwords that only appear in documentation and defaults (compared lower-cased). */
const PLACEHOLDER_PASSWORDS = new Set([
  "pass", "passw", "passwd", "password", "pwd", "pw", "secret", "changeme", "changeit", "example",
  "test", "testing", "dummy", "placeholder", "redacted", "token", "apikey", "api_key", "user",
  "username", "admin", "root", "guest", "anonymous", "foo", "bar", "foobar", "hunter2", "letmein",
  "default", "none", "null", "empty", "sample", "xxx", "qwerty", "abc123", "123456", "12345678",
]);

/** Words that mark a hand-written stand-in anywhere in the password. */
const PLACEHOLDER_WORD = /passw(?:or)?d|replace|your[_-]|example|changeme|placeholder|redacted|dummy|<|>|\.\.\.|\*{2,}|x{3,}/i;

/** Template and variable syntax: `${VAR}`, `$VAR`, `$(cmd)`, `{{var}}`, `{var}`, `%s`, `%(name)s`, `%VAR%`, `[PASSWORD]`. */
const TEMPLATE = /^\$|\$\{|\{\{|^\{.*\}$|^%[a-z(]|%[A-Za-z_]+%|^\[.*\]$|^:/;

/**
 * True when `credential` (`user:password`) is a placeholder or template rather than a real secret:
 * empty or short password (< 4 characters), a documentation word, template syntax, one repeated
 * character, a port-like number, or a password equal to the user name. The pair
 * `<token>:x-oauth-basic` (GitHub's token-as-user form) counts as real when the user looks like a
 * token (>= 20 characters).
 */
export function isPlaceholderCredential(credential: string): boolean {
  const colon = credential.indexOf(":");
  if (colon === -1) return true;
  const user = credential.slice(0, colon);
  const password = credential.slice(colon + 1);
  if (/^x-oauth-(?:basic|token)$/i.test(password)) return user.length < 20 || /^(.)\1*$/.test(user) || TEMPLATE.test(user);
  if (password.length < 4) return true;
  const lower = password.toLowerCase();
  if (PLACEHOLDER_PASSWORDS.has(lower)) return true;
  if (PLACEHOLDER_WORD.test(password) || TEMPLATE.test(password)) return true;
  if (/^(.)\1*$/.test(password)) return true;
  if (/^[0-9]{1,5}$/.test(password)) return true;
  return lower === user.toLowerCase();
}
