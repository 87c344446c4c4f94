/**
 * When a `scheme://user:password@host` URL holds a credential (rules `database-url-credentials`,
 * `http-url-credentials`, `url-credentials`). Issue 10: a password with a real host is a
 * credential even when it is a common word (`hunter2`, `changeme`, `Password2024!`); only
 * documentation placeholders are skipped. The rule, exactly (also in the package README):
 *
 * A URL is **not** reported when one of these holds, and is reported otherwise:
 * 1. the password is shorter than 4 characters, or only digits and at most 5 of them (`host:8080@…`
 *    reads as a port);
 * 2. the password is template or variable syntax: it starts with `:`, or with `$`
 *    followed by a letter, `_`, `{` or `(` (a variable; `$3cr3t!` is a password), or contains `${`,
 *    `$(`, `{{`, `%(`, `<` or `>`, or is wrapped in `{…}`, `[…]` or `%…%`, or is `%s`;
 * 3. the password is a stand-in word: `password`, `passwd`, `pass`, `pwd`, `pw`, `secret`, each
 *    optionally after `your`, `my`, `db`, `the`, `user`, `some` or `new` and `_`/`-` (`YOUR_PASSWORD`,
 *    `db-pass`), or contains `placeholder`, `redacted`, `replace` (`REPLACE_ME`,
 *    `REPLACE_WITH_PASSWORD`), `your_pass`/`yourpass`, `...`, `…`, `***` or `xxx`, or is one
 *    repeated character (`xxxx`, `****`);
 * 4. the host is a documentation host: `example.com`, `example.org`, `example.net` or a name
 *    under them, a name under the reserved top-level domains `.test`, `.example`, `.invalid`
 *    (RFC 2606, RFC 6761), or one of the words `example`, `host`, `hostname`, `your-host`,
 *    `yourhost`, `your_host`, `myhost`, `server`, `servername`, `domain` (any port);
 * 5. the host is this machine (`localhost`, a name under `.localhost`, `127.x.x.x`, `[::1]`,
 *    `0.0.0.0`) and the password is a common default (`admin`, `root`, `postgres`, `changeme`,
 *    `hunter2`, … the list below) or equals the user name: `user:pass@localhost`-style examples.
 *    A random-looking password on localhost is still reported (passwords are reused).
 * `<token>:x-oauth-basic` / `x-oauth-token` (GitHub's token-as-user form) is a credential when
 * the user part is at least 20 characters and not a template or one repeated character.
 */

/** Defaults and common words that, on this machine (rule 5), are a local example rather than a secret. */
const LOCAL_DEFAULTS = new Set([
  "admin", "root", "postgres", "mysql", "redis", "mongo", "mongodb", "rabbit", "rabbitmq", "guest", "user", "username",
  "test", "testing", "dev", "development", "local", "changeme", "changeit", "hunter2", "letmein", "default", "example",
  "sample", "demo", "dummy", "token", "apikey", "api_key", "foo", "bar", "foobar", "qwerty", "abc123", "123456",
  "1234567", "12345678", "123456789", "password1", "password123", "passw0rd", "p@ssw0rd", "s3cret", "secret123",
]);

const STAND_IN_WORD = /^(?:(?:your|my|db|the|user|some|new)[_-]?)?(?:password|passwd|pass|pwd|pw|secret)$/i;
const STAND_IN_PART = /placeholder|redacted|replace|your[_-]?pass|\.\.\.|…|\*{3}|x{3}/i;
const TEMPLATE = /^\$(?=[A-Za-z_{(])|^:|\$\{|\$\(|\{\{|%\(|[<>]|^\{.*\}$|^\[.*\]$|^%.*%$|^%s$/;
const DOC_HOST = /(?:^|\.)example\.(?:com|org|net)$|\.(?:test|example|invalid)$|^(?:example|host|hostname|your[-_]?host|myhost|server|servername|domain)$/;
const LOOPBACK = /^(?:localhost|.+\.localhost|127(?:\.\d{1,3}){3}|\[::1\]|0\.0\.0\.0)$/;

/** Host name of `hostPort` (`db.internal:5432`, `[::1]:6379`, `a.example.com,b.example.com:27017` for MongoDB seed lists), lower-cased, without port. */
function hostName(hostPort: string): string {
  const comma = hostPort.indexOf(",");
  const first = (comma === -1 ? hostPort : hostPort.slice(0, comma)).toLowerCase();
  if (first.startsWith("[")) return first.slice(0, first.indexOf("]") + 1);
  const colon = first.indexOf(":");
  const host = colon === -1 ? first : first.slice(0, colon);
  return host.endsWith(".") ? host.slice(0, -1) : host;
}

/**
 * True when `body` (`user:password@host[:port]`, the text between `://` and the end of the host)
 * is a documentation placeholder rather than a credential, by the rules of this module's doc.
 */
export function isPlaceholderUrlCredential(body: string): boolean {
  const at = body.lastIndexOf("@");
  if (at === -1) return true;
  const colon = body.indexOf(":");
  if (colon === -1 || colon > at) return true;
  const user = body.slice(0, colon);
  const password = body.slice(colon + 1, at);
  // The password's checks first: a placeholder password (the common case in documentation) is
  // refused without reading the host. Same verdicts as the rules' order in the module doc.
  if (/^x-oauth-(?:basic|token)$/i.test(password)) {
    return DOC_HOST.test(hostName(body.slice(at + 1))) || user.length < 20 || /^(.)\1*$/.test(user) || TEMPLATE.test(user);
  }
  if (password.length < 4 || /^[0-9]{1,5}$/.test(password)) return true;
  if (TEMPLATE.test(password) || STAND_IN_WORD.test(password) || STAND_IN_PART.test(password) || /^(.)\1*$/.test(password)) return true;
  const host = hostName(body.slice(at + 1));
  if (DOC_HOST.test(host)) return true;
  if (LOOPBACK.test(host)) {
    const lower = password.toLowerCase();
    return LOCAL_DEFAULTS.has(lower) || lower === user.toLowerCase();
  }
  return false;
}
