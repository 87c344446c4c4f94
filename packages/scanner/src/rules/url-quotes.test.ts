/**
 * try14 F17 and F21: URL passwords in JSON with escaped slashes (`postgres:\/\/…`, PHP's
 * json_encode) and passwords holding a raw `'`, `"`, `\` or `<`. A URL opened by a quote ends at
 * that quote unless a backslash escapes it; in a URL not opened by a quote these characters are the
 * password's. Every URL is built at test time from a random password (no credential in the source).
 */
import { describe, expect, it } from "vitest";
import { randomChars } from "../fakes.js";
import { scan } from "../scan.js";

const pw = (seed: number): string => randomChars(6, seed) + randomChars(4, seed + 1, "0123456789");
const HOST = "db.acme-corp.io";
const findings = (text: string) => scan(text).map((f) => ({ ruleId: f.ruleId, offset: f.offset, endOffset: f.endOffset, fingerprint: f.fingerprint }));
/** The one finding of `text`, which must cover `secret` (its first occurrence) and be of `ruleId`. */
function expectOne(text: string, secret: string, ruleId = "database-url-credentials") {
  const start = text.indexOf(secret);
  expect(start).toBeGreaterThanOrEqual(0);
  const found = findings(text);
  expect(found).toEqual([{ ruleId, offset: start, endOffset: start + secret.length, fingerprint: expect.stringMatching(/^[0-9a-f]{32}$/) }]);
  return found[0]!.fingerprint;
}
const plainFingerprint = (userInfo: string, scheme = "postgres") => findings(`${scheme}://${userInfo}@${HOST}/x`)[0]?.fingerprint;
/** What PHP's json_encode writes by default: JSON with every `/` escaped. */
const phpJson = (value: unknown) => JSON.stringify(value).replace(/\//g, "\\/");

describe("F17: JSON with escaped slashes", () => {
  it.each([
    ["postgres", "database-url-credentials"],
    ["https", "http-url-credentials"],
    ["sftp", "url-credentials"],
    ["jdbc:postgresql", "database-url-credentials"],
  ])("%s:\\/\\/ is read as :// (%s), at the original position, with the plain URL's fingerprint", (scheme, ruleId) => {
    const userInfo = `app:${pw(1)}`;
    const text = phpJson({ url: `${scheme}://${userInfo}@${HOST}/x` });
    expect(text).toContain(":\\/\\/");
    expect(expectOne(text, userInfo, ruleId)).toBe(plainFingerprint(userInfo, scheme));
  });
  it("reads \\/ inside the password as /", () => {
    const password = `${pw(2)}/${pw(3)}`;
    const text = phpJson({ url: `postgres://app:${password}@${HOST}/x` });
    expect(expectOne(text, `app:${password.replace("/", "\\/")}`)).toBe(plainFingerprint(`app:${password}`));
  });
  it("finds two URLs in one escaped JSON line", () => {
    const text = phpJson({ a: `postgres://app:${pw(4)}@${HOST}/x`, b: `redis://:${pw(5)}@cache.acme-corp.io:6379/0` });
    expect(findings(text).map((f) => f.ruleId)).toEqual(["database-url-credentials", "database-url-credentials"]);
  });
});

describe.each(["'", '"', "\\", "<"])("F21: a password holding %s", (c) => {
  const password = `${pw(10)}${c}${pw(11)}`;
  const userInfo = `app:${password}`;
  const url = `postgres://${userInfo}@${HOST}/x`;
  it("is found in a URL not opened by a quote (a note, YAML, an env line)", () => {
    for (const text of [url, `note: ${url}`, `DATABASE_URL=${url}`, `- see ${url} (prod)`]) expectOne(text, userInfo);
  });
  it("is found in a JSON string (escaped there), with the plain URL's fingerprint", () => {
    const text = JSON.stringify({ url });
    expect(expectOne(text, JSON.stringify(userInfo).slice(1, -1))).toBe(plainFingerprint(userInfo));
  });
  it("is found in a JSON string with escaped slashes", () => {
    expectOne(phpJson({ url }), JSON.stringify(userInfo).slice(1, -1));
  });
  it("is found in a single-quoted string (escaped with \\ when it is ')", () => {
    const quoted = userInfo.replace(/[\\']/g, (x) => "\\" + x);
    expectOne(`url = 'postgres://${quoted}@${HOST}/x'`, quoted);
  });
});

describe("F21: the quote that opened a URL ends it", () => {
  const p = pw(20);
  it.each([
    ["JSON: URL without host, an e-mail address in the next value", JSON.stringify({ url: `postgres://app:${p}`, mail: "ops@acme-corp.io" })],
    ["JavaScript concatenation, single quotes", `const u = 'postgres://app:'+pw+'@${HOST}/x';`],
    ["JavaScript concatenation, double quotes", `const u = "postgres://app:"+pw+"@${HOST}/x";`],
    ["HTML attribute, an address in the text", `<a href="postgres://app:${p}">db</a> mail ops@acme-corp.io`],
    ["single quotes, then an address", `'postgres://app:${p}','ops@acme-corp.io'`],
  ])("%s: not reported", (_name, text) => {
    expect(findings(text)).toEqual([]);
  });
});

describe("near misses stay negative with the new characters and the escaped separator", () => {
  it.each([
    ["placeholder in angle brackets, unquoted", `postgres://app:<password>@${HOST}/x`],
    ["placeholder password, escaped slashes", phpJson({ url: "postgres://user:password@localhost/db" })],
    ["template variable, escaped slashes", phpJson({ url: `postgres://app:\${DB_PASSWORD}@${HOST}/x` })],
    ["documentation host, escaped slashes", phpJson({ url: `postgres://app:${pw(30)}@db.example.com/x` })],
    ["no user info, escaped slashes", phpJson({ url: `postgres://${HOST}:5432/x` })],
    ["port, escaped slashes", phpJson({ url: `https://${HOST}:8080/path@v2` })],
    ["template with a quote inside, unquoted", `postgres://app:{{ vars['db_pw'] }}@${HOST}/x`],
    ["stand-in with a quote, unquoted", `postgres://app:'password'@${HOST}/x`],
  ])("%s", (_name, text) => {
    expect(findings(text)).toEqual([]);
  });
});
