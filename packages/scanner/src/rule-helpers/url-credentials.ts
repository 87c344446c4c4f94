/**
 * Credentials in the user info of a URL, `scheme://user:password@host` (rules
 * `database-url-credentials`, `http-url-credentials`, `url-credentials`): the shared pattern and
 * the placeholder rule. Issue 10: a password with a real host is a credential even when it is a
 * common word (`hunter2`, `changeme`, `Password2024!`); only documentation placeholders are
 * skipped. The rule, exactly (also in the package README):
 *
 * Where the user info ends (RFC 3986 §3.2.1, read tolerantly: people paste passwords with raw
 * `#`, `/`, `?`, `@`, `[`): after `scheme://` (any scheme, `[A-Za-z][A-Za-z0-9+.-]*`, also nested
 * as in `jdbc:postgresql://`) the user (up to 128 characters, no `:`, `/`, `?`, `#`, `[`) runs to
 * the first `:`, and the host follows the LAST `@` before the first `/`, `?` or `#` that comes after
 * an `@` (or before the end of the URL: whitespace, `>`, or the quote that opened it unless a
 * backslash escapes it; try14 F21, {@link PASSWORD_CHAR}). So the
 * password may hold raw `/`, `?`, `#`, `[` before its first raw `@` and up to four raw `@`
 * (`pa#ss/wo?rd`, `P@ss!w@rd`), not a `/`, `?` or `#` after one (`p@ss/word@host` reads as
 * password `p`, host `ss`, path `/word@host`), and never `://` (a second URL). A user may hold one
 * or two raw `@` (an e-mail address as user name); its password then holds no `/`, `?`, `#`. The
 * host is a run of up to 253 host characters (`A-Z a-z 0-9 _ . % { } $ [ ] : , -`: names, ports,
 * IPv6 literals, MongoDB seed lists, `${DB_HOST}`).
 *
 * A URL is **not** reported when one of these holds, and is reported otherwise:
 * 1. the password is shorter than 4 characters, or is 1 to 5 digits alone or followed by `/`,
 *    `?` or `#` (`host:8080@…`, `host:8080/path@v2` read as a port and a path);
 * 2. the password is a template or variable (password-placeholder.ts): it holds a complete
 *    `${…}`, `$(…)`, `{{…}}`, `%(…)s` or `<…>` expression, or is as a whole `$NAME`, `%…%`,
 *    `{…}`, `[…]` (`[REDACTED:<rule>]`, what `redact` writes), `:name` or `%s` (`$3cr3t!` is a password);
 * 3. the password IS a stand-in as a whole (password-placeholder.ts): only mask characters
 *    (`xxxx`, `****`, `...`, `XXXX-XXXX`) or one repeated character, or, lower-cased and without
 *    surrounding mask characters, `password`, `passwd`, `pass`, `pwd`, `pw`, `secret` (optionally
 *    after `your`, `my`, `db`, `the`, `user`, `some`, `new` and `_`/`-`, optionally followed by
 *    `here`), `placeholder`, `redacted`, `replace_me`, `replace_with_…`, `insert_…_here`,
 *    `enter_…_here`, `put_…_here`, `…_goes_here`. A password that merely contains such a word
 *    (`Xplaceholder9!`, `replace4Me!`, `a1xxx9`) is a credential;
 * 4. the host is a documentation host: `example.com`, `example.org`, `example.net` or a name
 *    under them, a name under the reserved top-level domains `.test`, `.example`, `.invalid`
 *    (RFC 2606, RFC 6761), or one of the words `example`, `host`, `hostname`, `your-host`,
 *    `yourhost`, `your_host`, `myhost`, `server`, `servername`, `domain` (any port);
 * 5. the host is this machine (`localhost`, a name under `.localhost`, `127.x.x.x`, `[::1]`,
 *    `0.0.0.0`) and the password is a common default (`admin`, `root`, `postgres`, `changeme`,
 *    `hunter2`, … the list below) or equals the user name: `user:pass@localhost`-style examples.
 *    A random-looking password on localhost is still reported (passwords are reused).
 * `<token>:x-oauth-basic` / `x-oauth-token` (GitHub's token-as-user form) is a credential when
 * the user part is at least 20 characters and not a template or stand-in (rules 2 and 3).
 */

import { isPlaceholderPassword } from "./password-placeholder.js";

/** Host characters: names, ports, IPv6 literals, MongoDB seed lists, template hosts (`${DB_HOST}`). */
const HOST_CHARS = String.raw`A-Za-z0-9_.%{}$[\]:,-`;
/** A whole host: a run of host characters not followed by another host character or an `@`. */
const HOST = String.raw`[${HOST_CHARS}]{1,253}(?![@${HOST_CHARS}])`;
/** A user name: no `:`, `/`, `?`, `#`, `@`, `[`, quote, `<`, `>`, backslash. */
const USER = String.raw`[^\s:/?#@'"<>\\[]`;
/** `://`, or `:\/\/` as JSON may write it (PHP's `json_encode` escapes every `/`; try14 F17). */
const SEP = String.raw`:(?:\/\/|\\\/\\\/)`;
/**
 * One password character, by the URL's context (try14 F21): in a URL opened by a quote (`"` or `'`
 * just before the scheme), that quote ends it unless a backslash escapes it (`\"` in JSON), and any
 * other character but whitespace, `>` and `@` is the password's; in a URL not opened by a quote,
 * `'`, `"`, `<` and `\` are all password characters (`pa'ss`, `pa"ss`, `pa<ss`, `pa\ss`).
 */
const PASSWORD_CHAR = {
  doubleQuoted: String.raw`(?:[^\s">@]|(?<=\\)")`,
  singleQuoted: String.raw`(?:[^\s'>@]|(?<=\\)')`,
  free: String.raw`[^\s>@]`,
} as const;
/** Text just before the password when the URL is opened by `quote`: the quote, the scheme (nested: `jdbc:postgresql`), the separator. */
const OPENED_BY = (quote: string): string => String.raw`${quote}[A-Za-z][A-Za-z0-9+.:-]{0,80}${SEP}`;
/**
 * `user:password` with password characters `c`: a user without `@` and a password with raw `/`,
 * `?`, `#` before its first `@` (never `://`, `:\/\/`: a second URL), or a user holding one or two
 * `@` (an e-mail address) and a password without them; then up to four more raw `@` in the
 * password, each part without `/`, `?`, `#`. Greedy: the host follows the last `@` before the first
 * `/`, `?` or `#` that comes after an `@`.
 */
const userInfo = (c: string): string => {
  const beforeAt = String.raw`(?:(?!${SEP})${c}){0,256}`;
  const afterAt = String.raw`(?:(?![/?#])${c}){0,128}`;
  return String.raw`(?:${USER}{0,128}:${beforeAt}|${USER}{0,64}(?:@${USER}{0,64}){1,2}:${afterAt})(?:@${afterAt}){0,4}`;
};
/** The user info in its context: exactly one branch's lookbehind holds at a position. */
const USERINFO = String.raw`(?:(?<=${OPENED_BY('"')})${userInfo(PASSWORD_CHAR.doubleQuoted)}|(?<=${OPENED_BY("'")})${userInfo(PASSWORD_CHAR.singleQuoted)}|(?<!${OPENED_BY(`["']`)})${userInfo(PASSWORD_CHAR.free)})`;

/** The prefixes of the URL credential rules: `://` and its JSON-escaped form `:\/\/`. */
export const URL_PREFIXES: readonly string[] = ["://", String.raw`:\/\/`];

/**
 * What a URL finding's fingerprint is of: the user info with the JSON escapes `\/`, `\"`, `\'`
 * and `\\` read, so a password written in a JSON string (escaped slashes or quotes) has the
 * fingerprint of the same password written plainly.
 */
export function urlCredentialMaterial(value: string): string {
  return value.includes("\\") ? value.replace(/\\([/"'\\])/g, "$1") : value;
}

/** Any URI scheme (RFC 3986 §3.1), up to 64 characters. */
export const ANY_SCHEME = String.raw`[A-Za-z][A-Za-z0-9+.-]{0,63}`;

/**
 * The sticky pattern of a URL credential rule whose scheme is `scheme` (regex source, matched
 * case-insensitively): `lead` is the scheme (in a lookbehind; the rule's prefix is `://`), `secret`
 * is `user:password` (the finding), `body` is `user:password@host` (what
 * {@link isPlaceholderUrlCredential} checks). No part can match what the part after it starts
 * with (`:` ends the user, `@` each part of the password), so an attempt reads the user, the
 * password and the host once and backs off at most their length: never more than 1 160 code units,
 * and it stops at the next `://`, whatever follows.
 */
export function urlCredentialPattern(scheme: string): RegExp {
  return new RegExp(String.raw`(?<=(?<lead>${scheme}))${SEP}(?<body>(?<secret>${USERINFO})@${HOST})`, "iy");
}

/** Defaults and common words that, on this machine (rule 5), are a local example rather than a secret. */
const LOCAL_DEFAULTS = new Set([
  "admin", "root", "postgres", "mysql", "redis", "mongo", "mongodb", "rabbit", "rabbitmq", "guest", "user", "username",
  "test", "testing", "dev", "development", "local", "changeme", "changeit", "hunter2", "letmein", "default", "example",
  "sample", "demo", "dummy", "token", "apikey", "api_key", "foo", "bar", "foobar", "qwerty", "abc123", "123456",
  "1234567", "12345678", "123456789", "password1", "password123", "passw0rd", "p@ssw0rd", "s3cret", "secret123",
]);

/** 1 to 5 digits alone or before `/`, `?`, `#`: a port (and a path), not a password. */
const PORT = /^[0-9]{1,5}(?:[/?#]|$)/;
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
 * JSON escapes are read first (`\/` is `/`: {@link urlCredentialMaterial}), and a password in
 * quotes as a whole is checked without them.
 */
export function isPlaceholderUrlCredential(escapedBody: string): boolean {
  const body = urlCredentialMaterial(escapedBody);
  const at = body.lastIndexOf("@");
  if (at === -1) return true;
  const colon = body.indexOf(":");
  if (colon === -1 || colon > at) return true;
  const user = body.slice(0, colon);
  const written = body.slice(colon + 1, at);
  // A password in quotes as a whole (`'password'`, `"<pw>"`) is checked without them.
  const password = /^(["']).+\1$/s.test(written) ? written.slice(1, -1) : written;
  // The password's checks first: a placeholder password (the common case in documentation) is
  // refused without reading the host. Same verdicts as the rules' order in the module doc.
  if (/^x-oauth-(?:basic|token)$/i.test(password)) {
    return DOC_HOST.test(hostName(body.slice(at + 1))) || user.length < 20 || isPlaceholderPassword(user);
  }
  if (password.length < 4 || PORT.test(password)) return true;
  if (isPlaceholderPassword(password)) return true;
  const host = hostName(body.slice(at + 1));
  if (DOC_HOST.test(host)) return true;
  if (LOOPBACK.test(host)) {
    const lower = password.toLowerCase();
    return LOCAL_DEFAULTS.has(lower) || lower === user.toLowerCase();
  }
  return false;
}
