import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { hasGithubChecksum } from "./checksums.js";
import { breakChecksum, fakeGithubToken, randomChars } from "./fakes.js";
import { fingerprint } from "./fingerprint.js";
import type { Rule } from "./rule.js";
import { redact, scan } from "./scan.js";

const noExamples = () => ({ positive: [], negative: [] });
const ghp: Rule = {
  id: "test-ghp",
  label: "Test GitHub token",
  prefixes: ["ghp_"],
  pattern: /(?<![A-Za-z0-9_])ghp_[A-Za-z0-9]{36}(?![A-Za-z0-9_])/y,
  validate: hasGithubChecksum,
  examples: noExamples,
};
const akia: Rule = {
  id: "test-aws",
  label: "Test AWS key id",
  prefixes: ["AKIA", "ASIA"],
  pattern: /(?<![A-Z0-9])(?:AKIA|ASIA)[A-Z2-7]{16}(?![A-Z0-9])/y,
  examples: noExamples,
};
const url: Rule = {
  id: "test-url",
  label: "Test URL password",
  prefixes: ["://"],
  pattern: /:\/\/[A-Za-z0-9._-]{1,64}:(?<secret>[^\s:@/]{3,128})@/y,
  examples: noExamples,
};
const rules = [ghp, akia, url];
const tok = fakeGithubToken("ghp_", 42);

describe("scan", () => {
  it("reports a token with 1-based positions, end exclusive", () => {
    const f = scan(`first line\n  token: ${tok} end`, { rules });
    expect(f).toHaveLength(1);
    expect(f[0]).toMatchObject({ ruleId: "test-ghp", label: "Test GitHub token", line: 2, column: 10, endLine: 2, endColumn: 50, preview: "ghp_****" });
  });

  it("never puts the value in a finding", () => {
    const f = scan(`x ${tok}`, { rules });
    expect(JSON.stringify(f)).not.toContain(tok.slice(4));
  });

  it("fingerprints with the given key (HMAC-SHA-256, 32 hex)", () => {
    const a = scan(tok, { rules, fingerprintKey: "k1" })[0]!.fingerprint;
    const b = scan(tok, { rules, fingerprintKey: "k2" })[0]!.fingerprint;
    expect(a).toMatch(/^[0-9a-f]{32}$/);
    expect(a).not.toBe(b);
    expect(a).toBe(fingerprint(tok, "k1"));
  });

  it("runs validate: a wrong checksum is not reported", () => {
    expect(scan(breakChecksum(tok), { rules })).toEqual([]);
  });

  it("ignores vendor-documented example keys", () => {
    expect(scan("aws_access_key_id = " + "AKIAIOSFODNN7" + "EXAMPLE", { rules })).toEqual([]);
    expect(scan("AKIA" + randomChars(16, 3, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"), { rules })).toHaveLength(1);
  });

  it("ignores jwt.io's documentation sample JWT (known by its SHA-256), not a JWT signed with another secret", () => {
    const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString("base64url");
    const signed = `${b64({ alg: "HS256", typ: "JWT" })}.${b64({ sub: "1234567890", name: "John Doe", iat: 1516239022 })}`;
    const sign = (secret: string) => `${signed}.${createHmac("sha256", secret).update(signed).digest("base64url")}`;
    expect(sign("your-256-bit-secret").split(".")[2]!.slice(0, 8)).toBe("SflKxwRJ"); // the sample as jwt.io shows it
    expect(scan(`Authorization: Bearer ${sign("your-256-bit-secret")}\n`)).toEqual([]);
    expect(scan(`curl -H "Authorization: Bearer ${encodeURIComponent(sign("your-256-bit-secret"))}"`)).toEqual([]);
    expect(scan(`Authorization: Bearer ${sign("another-256-bit-secret")}\n`).map((f) => f.ruleId)).toEqual(["jwt"]);
  });

  it("sees through CRLF, a BOM and zero-width characters, with positions in the original", () => {
    const text = "\uFEFFa\r\nb\r\nkey=" + tok.slice(0, 10) + "\u200B" + tok.slice(10, 20) + "\u2060\u200D" + tok.slice(20) + "\r\n";
    const f = scan(text, { rules });
    expect(f).toHaveLength(1);
    expect(f[0]).toMatchObject({ line: 3, column: 5, endLine: 3, endColumn: 5 + tok.length + 3 });
    expect(f[0]!.fingerprint).toBe(scan(tok, { rules })[0]!.fingerprint);
    expect(text.slice(f[0]!.offset, f[0]!.endOffset).replace(/[\u200B-\u200D\u2060]/g, "")).toBe(tok);
  });

  it("maps positions of tokens before and after the first zero-width character or CRLF", () => {
    const other = fakeGithubToken("ghp_", 43);
    for (const sep of ["\u200B", "\r\n", "\uFEFF"]) {
      const text = `a ${tok} b${sep}c ${other}\n`;
      const f = scan(text, { rules });
      expect(f.map((x) => text.slice(x.offset, x.endOffset))).toEqual([tok, other]);
      expect(f[1]).toMatchObject({ line: sep === "\r\n" ? 2 : 1 });
    }
  });

  it("skips a prefix whose leading lookbehind fails, with the same result as the regex", () => {
    for (const before of ["x", "_", "9", " ", "=", "-", "é", ""]) {
      const text = `${before}${tok}`;
      const expected = new RegExp(ghp.pattern.source).test(text) ? 1 : 0;
      expect(scan(text, { rules }), JSON.stringify(before)).toHaveLength(expected);
    }
  });

  it("reports only the secret group when the pattern has one", () => {
    const pw = randomChars(20, 9);
    const f = scan(`db: postgres://admin:${pw}@db.example.com/x`, { rules });
    expect(f).toHaveLength(1);
    expect(f[0]).toMatchObject({ ruleId: "test-url", column: 22, endColumn: 22 + pw.length, preview: "****" });
  });

  it("keeps one finding when rules overlap on the same span (longest, then first rule)", () => {
    const dup: Rule = { ...ghp, id: "test-ghp-dup" };
    const wide: Rule = { id: "test-ghp-wide", label: "wide", prefixes: ["ghp_"], pattern: /ghp_[A-Za-z0-9]{36}(?:!!x)?/y, examples: noExamples };
    expect(scan(tok, { rules: [ghp, dup] }).map((f) => f.ruleId)).toEqual(["test-ghp"]);
    expect(scan(tok + "!!x", { rules: [ghp, wide] }).map((f) => f.ruleId)).toEqual(["test-ghp-wide"]);
  });

  it("returns findings in order of position across rules", () => {
    const aws = "AKIA" + randomChars(16, 4, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567");
    const f = scan(`${aws}\n${tok}\n${fakeGithubToken("ghp_", 1)} ${aws}`, { rules });
    expect(f.map((x) => [x.ruleId, x.line])).toEqual([["test-aws", 1], ["test-ghp", 2], ["test-ghp", 3], ["test-aws", 3]]);
  });

  it("suppresses findings on a line with teammem:allow", () => {
    const text = `a ${tok} # teammem:allow\nb ${tok}`;
    expect(scan(text, { rules }).map((f) => f.line)).toEqual([2]);
    expect(scan(text, { rules, allowMarker: false }).map((f) => f.line)).toEqual([1, 2]);
  });

  it("suppresses allowlisted fingerprints", () => {
    const other = fakeGithubToken("ghp_", 43);
    const fp = scan(tok, { rules, fingerprintKey: "k" })[0]!.fingerprint;
    expect(scan(`${tok} ${other}`, { rules, fingerprintKey: "k", allowFingerprints: [fp.toUpperCase()] })).toHaveLength(1);
  });

  it("runs custom rules after the catalog", () => {
    const acme: Rule = { id: "acme", label: "ACME", prefixes: ["acme_"], pattern: /acme_[a-z]{10}/y, examples: noExamples };
    expect(scan("x acme_abcdefghij", { rules, customRules: [acme] }).map((f) => f.ruleId)).toEqual(["acme"]);
  });

  it("counts CR-only line ends as line breaks (classic Mac OS files)", () => {
    const f = scan(`one\rtwo\r  ${tok}\r`, { rules });
    expect(f).toMatchObject([{ line: 3, column: 3, endLine: 3, endColumn: 3 + tok.length }]);
  });

  it("starts a finding at the token, not at its random part (issue 10: Slack bot token)", () => {
    const slack = `xoxb-${randomChars(12, 1, "0123456789")}-${randomChars(13, 2, "0123456789")}-${randomChars(24, 3)}`;
    const f = scan(`SLACK_BOT_TOKEN=${slack}`);
    expect(f).toMatchObject([{ ruleId: "slack-bot-token", column: 17, endColumn: 17 + slack.length, preview: "xoxb-****" }]);
    expect(redact(`t=${slack}.`)).toBe("t=[REDACTED:slack-bot-token].");
  });

  it("starts a finding at the lead of a token whose literal sits inside it (Azure AD client secret)", () => {
    const secret = `${randomChars(3, 1)}7Q~${randomChars(34, 2)}`;
    expect(scan(`client_secret=${secret}`)).toMatchObject([{ ruleId: "azure-ad-client-secret", column: 15, endColumn: 15 + secret.length, preview: "****" }]);
  });

  it("asks a rule's validator once per distinct value of a text and reports every occurrence", () => {
    const seen: string[] = [];
    const counted: Rule = { ...akia, id: "test-aws-counted", validate: (v) => (seen.push(v), !v.endsWith("A")) };
    const ids = ["AKIA" + randomChars(16, 5, "BCDEFGHIJKLMNOPQRSTUVWXYZ234567"), "AKIA" + randomChars(15, 6, "BCDEFG") + "A"];
    const f = scan(`${ids[0]} ${ids[1]}\n`.repeat(500), { rules: [counted] });
    expect(seen).toEqual(ids); // the second is refused, once
    expect(f).toHaveLength(500);
    expect(new Set(f.map((x) => x.fingerprint))).toEqual(new Set([fingerprint(ids[0]!)]));
    expect(f[499]).toMatchObject({ line: 500, column: 1, endLine: 500, endColumn: 21, offset: 499 * 42, endOffset: 499 * 42 + 20 });
  });

  it("reports every finding of a text holding more encoded ones than a call takes arguments (160 000 base64-encoded key IDs)", () => {
    const id = "AKIA" + randomChars(16, 7, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567");
    const encoded = Buffer.from(`${id} `.repeat(160_000)).toString("base64");
    const f = scan(encoded, { rules: [akia] }); // threw RangeError (a spread of the decoded matches)
    expect(f).toHaveLength(160_000);
    expect(f[1]).toMatchObject({ ruleId: "test-aws", encoding: "base64", offset: 28, endOffset: 56 });
    expect(f[159_999]).toMatchObject({ ruleId: "test-aws", encoding: "base64", offset: 159_999 * 28, endOffset: 160_000 * 28 });
  }, 60_000);

  it("finds nothing in empty or prefix-only text", () => {
    expect(scan("", { rules })).toEqual([]);
    expect(scan("ghp_", { rules })).toEqual([]);
  });

  it("uses the whole catalog by default", () => {
    expect(scan(`token ${tok}`).length).toBeGreaterThanOrEqual(1);
  });
});

describe("redact", () => {
  it("replaces each finding with [REDACTED:<ruleId>] and keeps the rest", () => {
    const pw = randomChars(12, 5);
    const text = `a ${tok}\r\nurl https://u:${pw}@h/\n`;
    expect(redact(text, { rules })).toBe(`a [REDACTED:test-ghp]\r\nurl https://u:[REDACTED:test-url]@h/\n`);
  });
  it("returns the text unchanged when nothing is found", () => {
    expect(redact("nothing here", { rules })).toBe("nothing here");
  });
  it("removes zero-width characters hidden inside the token too", () => {
    const text = tok.slice(0, 8) + "\u200B" + tok.slice(8);
    expect(redact(`<${text}>`, { rules })).toBe("<[REDACTED:test-ghp]>");
  });
});
