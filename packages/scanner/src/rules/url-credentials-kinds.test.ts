/**
 * Issue 10, credentials in URLs, by kind (a try-out found each missed): any scheme; raw reserved
 * characters in the password; a password that merely contains a stand-in word; a vendor token as
 * the password or user reported by its vendor rule. Near misses are not reported. Passwords and
 * tokens are built from pieces at run time (fakes.ts), so this file scans clean.
 */
import { describe, expect, it } from "vitest";
import { fakeGithubToken, randomChars } from "../fakes.js";
import { isPlaceholderPassword } from "../rule-helpers/password-placeholder.js";
import { redact, scan } from "../scan.js";
import { RULES } from "./index.js";

const pw = randomChars(9, 41) + "7";
/** `[ruleId, reported text]` of each finding of `text`. */
const found = (text: string) => scan(text).map((f) => [f.ruleId, text.slice(f.offset!, f.endOffset!)]);

describe("1. any scheme: scheme://user:password@host is reported for every RFC 3986 scheme", () => {
  it.each([
    ["ftp", "url-credentials"],
    ["sftp", "url-credentials"],
    ["smtp", "url-credentials"],
    ["ldap", "url-credentials"],
    ["git+ssh", "url-credentials"],
    ["s3", "url-credentials"],
    ["myapp+tls", "url-credentials"],
    ["x-custom.v2", "url-credentials"],
    ["snowflake", "url-credentials"],
    ["elasticsearch", "url-credentials"],
    ["jdbc:postgresql", "database-url-credentials"],
    ["jdbc:sqlserver", "database-url-credentials"],
    ["clickhouse", "database-url-credentials"],
    ["nats", "database-url-credentials"],
    ["kafka", "database-url-credentials"],
    ["rediss", "database-url-credentials"],
    ["amqps", "database-url-credentials"],
    ["mongodb+srv", "database-url-credentials"],
    ["postgresql+asyncpg", "database-url-credentials"],
    ["https", "http-url-credentials"],
    ["git+https", "http-url-credentials"],
  ])("%s:// is reported by %s", (scheme, ruleId) => {
    const text = `URL=${scheme}://svc:${pw}@svc.acme-corp.io:7000/x`;
    expect(found(text)).toEqual([[ruleId, `svc:${pw}`]]);
  });

  it.each([
    ["a scheme glued to a longer word", `URL=x${"A".repeat(64)}://svc:${pw}@svc.acme-corp.io`], // 65 letters: no scheme starts there
    ["no scheme, only ://", `see ://svc:${pw}@svc.acme-corp.io`],
    ["a scheme starting with a digit", `9p://svc:${pw}@svc.acme-corp.io`],
  ])("not reported: %s", (_name, text) => {
    expect(found(text)).toEqual([]);
  });
});

describe("2. raw reserved characters in the password", () => {
  const tail = randomChars(6, 42);
  it.each([
    ["#, / and ?", `pa#ss/wo?rd${tail}`],
    ["an @ then letters", `p@ss${tail}`],
    ["@ and !", `P@ssw0rd!${tail}`],
    ["several @", `a@b@c@d${tail}`],
    ["[ and ]", `a[b]c${tail}`],
    ["/ then @ later", `x/y?z#w${tail}@v`],
    [": inside", `pa:ss/${tail}`],
    ["a trailing @-part with !", `${tail}@ab!`],
  ])("%s: the whole password is the finding", (_name, password) => {
    const text = `DATABASE_URL=postgres://app:${password}@db.internal.acme-corp.io:5432/x?sslmode=require`;
    expect(found(text)).toEqual([["database-url-credentials", `app:${password}`]]);
  });

  it.each([
    ["an e-mail address as user name", `smtp://ops@mail.acme-corp.io:${pw}@smtp.acme-corp.io:587`, `ops@mail.acme-corp.io:${pw}`],
    ["an @ in the path after the host (npm scope)", `https://ci:${pw}@npm.acme-corp.io/@scope/pkg`, `ci:${pw}`],
    ["an e-mail address in the query", `https://ci:${pw}@api.acme-corp.io/v1?to=ops@acme-corp.io`, `ci:${pw}`],
    ["a version after @ in the path", `git+ssh://ci:${pw}@git.acme-corp.io/o/r@1.2.3`, `ci:${pw}`],
    ["Markdown bold around the URL", `**ftp://ci:${pw}@ftp.acme-corp.io:21**`, `ci:${pw}`],
    ["a query string around the URL", `?next=ftp://ci:${pw}@ftp.acme-corp.io:21&x=1`, `ci:${pw}`],
    ["a Markdown link", `[files](sftp://ci:${pw}@ftp.acme-corp.io/in)`, `ci:${pw}`],
    ["a URL after a URL", `https://web.archive.org/web/2020/https://ci:${pw}@api.acme-corp.io/`, `ci:${pw}`],
  ])("%s: the user info is the finding", (_name, text, credential) => {
    expect(found(text).map(([, t]) => t)).toEqual([credential]);
  });

  it.each([
    ["a port and a path holding @", "http://localhost:8080/path@v2"],
    ["a port, a path and an e-mail in the query", "https://api.acme-corp.io:8443/?email=ops@acme-corp.io"],
    ["a path holding @, no user info", "s3://bucket/path@2x.png"],
    ["a path with a colon before @", "https://api.acme-corp.io/a:b@c"],
    ["a user and no password", "ssh://git@github.com:22/org/repo@v1"],
    ["an scp-style git address", "git@github.com:org/repo.git"],
    ["an e-mail address", "mailto:ops@acme-corp.io, ops@acme-corp.io:443"],
    ["an IPv6 host with a port and a path holding @", "http://[::1]:8080/a@b"],
    ["a raw @ then / in the password reads as host and path", `https://ci:p@ss/word${pw}@api.acme-corp.io/`], // password `p`: too short
  ])("not reported: %s", (_name, text) => {
    expect(found(text)).toEqual([]);
  });
});

describe("3. a password that merely contains a stand-in word is a credential", () => {
  const digits = randomChars(3, 43, "0123456789");
  it.each([
    "Xplace" + "holder9!",
    "replace4Me" + digits,
    "redacted" + "Tuna" + digits,
    "pa...ss" + digits,
    "a1xxx9" + digits,
    "my" + "Example#" + digits,
    "**Star" + digits + "**",
    "change" + "me", // a common word: a credential with a real host (issue 10)
    "hun" + "ter2",
    "Password" + "2024!",
    "$ecret" + digits + "!", // $ and letters, not a whole variable name
    "your" + "face" + digits,
    "secret" + digits,
  ])("%s is reported", (password) => {
    const text = `postgres://app:${password}@db.internal.acme-corp.io:5432/x`;
    expect(found(text)).toEqual([["database-url-credentials", `app:${password}`]]);
    expect(isPlaceholderPassword(password)).toBe(false);
  });

  it.each([
    "<password>", "${DB_PASSWORD}", "pw_${ENV}", "$(PGPASSWORD)", "{{ db_pass }}", "%(password)s", "%s",
    "$DB_PASSWORD", "%DB_PASSWORD%", "{password}", "[password]", "[REDACTED]", "[REDACTED:url-credentials]", ":password",
    "****", "xxxxxx", "XXXX-XXXX", "...", "•••••", "password", "PASSWORD", "pass", "secret", "pwd",
    "YOUR_PASSWORD", "db-pass", "password_here", "__PASSWORD__", "***REDACTED***", "placeholder", "REDACTED",
    "REPLACE_ME", "replaceme", "REPLACE_WITH_PASSWORD", "INSERT_PASSWORD_HERE", "enter-your-password-here", "PASSWORD_GOES_HERE",
  ])("%s is a placeholder (whole value)", (password) => {
    expect(isPlaceholderPassword(password)).toBe(true);
    const text = `postgres://app:${password}@db.internal.acme-corp.io:5432/x`;
    expect(found(text)).toEqual([]);
  });

  it.each([
    ["a documentation host", `postgres://app:${"hun" + "ter2"}@db.example.com/x`],
    ["a reserved .test name", `ftp://app:${pw}@files.test/x`],
    ["a local default on localhost", `postgres://user:${"pa" + "ss"}@localhost:5432/x`],
    ["the user name as password on localhost", "amqp://guest:guest@127.0.0.1:5672/"],
  ])("not reported: %s", (_name, text) => {
    expect(found(text)).toEqual([]);
  });

  it("a redacted URL is not reported again", () => {
    for (const text of [`ftp://ci:${pw}@ftp.acme-corp.io/`, `postgres://app:pa#ss/${pw}@db.acme-corp.io/x`, `https://ci:${pw}@h.acme-corp.io/@s/p`]) {
      const once = redact(text);
      expect(once).not.toBe(text);
      expect(scan(once)).toEqual([]);
    }
  });

  it("a NuGet.Config password that merely contains a stand-in word is reported, a stand-in is not", () => {
    const entry = (value: string) => `<add key="ClearTextPassword" value="${value}" />`;
    expect(found(entry("Dummy" + "Feed#" + digits + "x")).map(([id]) => id)).toEqual(["nuget-config-password"]);
    expect(found(entry("Example" + "Feed" + digits))).toHaveLength(1);
    expect(found(entry("YOUR_PASSWORD_HERE"))).toEqual([]);
    expect(found(entry("********"))).toEqual([]);
  });
});

describe("4. a vendor token in a URL's user info is reported by its vendor rule", () => {
  const ghp = fakeGithubToken("ghp_", 44);
  it.each([
    ["as the password", `https://x-access-token:${ghp}@github.com/o/r.git`],
    ["as the user (x-oauth-basic)", `git+https://${ghp}:x-oauth-basic@github.com/o/r.git`],
    ["in an FTP URL", `ftp://ci:${ghp}@ftp.acme-corp.io/`],
    ["in a database URL", `postgres://ci:${ghp}@db.acme-corp.io/x`],
    ["in a custom scheme", `myapp+tls://ci:${ghp}@h.acme-corp.io/`],
    ["percent-encoded in a query", `?u=${encodeURIComponent(`https://x-access-token:${ghp}@github.com/o/r`)}`],
  ])("%s", (_name, text) => {
    expect(scan(text).map((f) => f.ruleId)).toEqual(["github-pat"]);
  });

  // Every vendor rule whose first positive example's value can stand as a password.
  const vendorTokens = RULES.filter((r) => r.generic !== true).flatMap((rule) => {
    const example = rule.examples().positive[0]!;
    const f = scan(example).find((x) => x.ruleId === rule.id);
    const value = f ? example.slice(f.offset!, f.endOffset!) : "";
    return /^[^\s'"<>\\@/?#]{8,128}$/.test(value) && !value.includes("://") ? [[rule.id, value] as const] : [];
  });
  // Rules whose format is read with context that a URL's password does not have (a key name, a
  // file's syntax, an ID nearby; the 160 characters an OpenSSH key body is read for, of which the
  // finding is the first 64): the URL rule reports the password.
  const needContext = new Set(["gitlab-session-cookie", "npmrc-auth-token", "nuget-config-password", "openssh-unarmored-private-key", "putty-private-key", "sidekiq-secret", "twilio-api-key"]);
  it("holds many vendor formats", () => expect(vendorTokens.length).toBeGreaterThan(150));
  it.each(vendorTokens)("%s as the password of an HTTPS URL", (ruleId, token) => {
    const text = `https://ci:${token}@git.acme-corp.io/o/r.git`;
    expect(scan(text).map((f) => f.ruleId)).toEqual([needContext.has(ruleId) ? "http-url-credentials" : ruleId]);
  });
});
