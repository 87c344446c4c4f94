/**
 * Passwords in a database URL's parameters and Oracle's `user/password@` (rules
 * `database-url-password-parameter`, `oracle-jdbc-url-credentials`; try14 F6). They are judged by the
 * URL credential rules' placeholder rules (`isPlaceholderUrlCredential`, url-credentials.ts: the
 * password shorter than 4 characters, a template, a whole-value stand-in; a documentation host; on
 * this machine a default or the user's name), on the `user:password@host` this module rebuilds.
 */
import { randomChars } from "../fakes.js";
import { isPlaceholderUrlCredential } from "./url-credentials.js";

/**
 * Characters of a parameter value: up to whitespace, a quote, `<>`, a backslash, a backtick, `&`,
 * `;`, `,`, `)` (MySQL's `(host=…,password=…)`) or a brace, and not ending in `.`, `:`, `*`, `_`
 * or `]` (a sentence's end, Markdown emphasis, a link's bracket). A password holding one of these
 * is reported by its part before it.
 */
export const PARAM_VALUE = String.raw`[^\s&;,)'"\x60<>\\{}]{0,255}[^\s&;,)'"\x60<>\\{}.:*_\]]`;

/** A `key=value` parameter's value in `url` (keys compared in any case); the first one. */
function param(url: string, keys: RegExp): string | undefined {
  const re = new RegExp(String.raw`[?&;:,(](?:${keys.source})=\{?([^\s&;,)'"\x60<>\\{}]{1,256})`, "i");
  return re.exec(url)?.[1];
}

/**
 * The host a database URL names: a `host=`/`serverName=`/`server=` parameter (SQL Server, MySQL's
 * `address=(host=…)`), else the authority after `//` (without user info and port), else after an `@`
 * (Oracle `@//host`, `@host:1521:SID`, a TNS alias); `localhost` for an embedded database URL that
 * names no host (`jdbc:h2:mem:`, `jdbc:derby:memory:`, `jdbc:sqlite:`): it lives on this machine.
 */
export function databaseUrlHost(url: string): string {
  const named = param(url, /host|servername|server/);
  if (named !== undefined) return named;
  const authority = /\/\/(?:[^/?#;@\s]*@)?([^/?#;:,()\s]{1,253})/.exec(url)?.[1];
  if (authority !== undefined) return authority;
  const tns = /@(?:\/\/)?([A-Za-z0-9_.-]{1,253})/.exec(url)?.[1];
  return tns ?? "localhost";
}

/**
 * True when `url` (a database URL up to and including the value of its first `password=`/`pwd=`
 * parameter, `value`) is a documentation placeholder: the URL rules' placeholder rules applied to
 * `user:value@host`, the user being a `user=`/`username=`/`userid=`/`uid=` parameter or the URL's
 * user info.
 */
export function isPlaceholderPasswordParameter(url: string, value: string): boolean {
  const user = param(url, /user|username|userid|uid/) ?? /\/\/([^/?#;:@\s]{1,128})(?::[^@/\s]*)?@/.exec(url)?.[1] ?? "";
  return isPlaceholderUrlCredential(`${user.replace(/[:@]/g, "")}:${value}@${databaseUrlHost(url).replace(/@/g, "")}`);
}

/**
 * A made-up password for the password-parameter rules' examples: 10 letters and digits, then
 * `digits` digits, reproducible from `seed` (test data only, never a real credential).
 */
export function examplePassword(seed: number, digits: number): string {
  return `${randomChars(10, seed)}${randomChars(digits, seed + 1, "0123456789")}`;
}
