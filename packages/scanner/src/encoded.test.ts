/**
 * Issue 10, "Encoded credentials": a token present only in encoded form (base64 of `user:<token>` in
 * a Docker config or a Basic header, a Kubernetes Secret value, base64url, percent-encoding, JSON
 * `\u` escapes, HTML character references) is reported at the encoded text's position, with the
 * decoded token's rule, its fingerprint and the encoding.
 */
import { describe, expect, it } from "vitest";
import { decodeBudgetFor, decodedRuns, MAX_DECODE_DEPTH } from "./engine/decode.js";
import { fakeGithubPat, fakeNpmToken, randomChars } from "./testing.js";
import { redact, scan } from "./scan.js";

const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");
const b64url = (s: string) => Buffer.from(s, "utf8").toString("base64url");
const TOKEN = fakeGithubPat(21);
const plain = scan(TOKEN)[0]!;

/** Findings as [ruleId, encoding, the encoded text the finding covers]. */
const found = (text: string) => scan(text).map((f) => [f.ruleId, f.encoding, text.slice(f.offset, f.endOffset)]);

describe("base64", () => {
  it("finds user:<token> in a Docker config.json auth value, covering the token's base64 groups", () => {
    const auth = b64(`deploy:${TOKEN}`);
    const text = `{\n  "auths": {\n    "ghcr.io": {\n      "auth": "${auth}"\n    }\n  }\n}\n`;
    const [f] = scan(text);
    expect(f).toMatchObject({ ruleId: "github-pat", encoding: "base64", line: 4, fingerprint: plain.fingerprint, preview: "ghp_****" });
    // "deploy:" is 7 bytes: the token starts in the third 4-character group (byte 6).
    expect(f!.column).toBe(text.split("\n")[3]!.indexOf(auth) + 1 + 8);
    expect(Buffer.from(text.slice(f!.offset, f!.endOffset), "base64").toString()).toContain(TOKEN);
  });

  it("finds an Authorization: Basic header and a Kubernetes Secret data value", () => {
    expect(found(`curl -H "Authorization: Basic ${b64(`ci:${TOKEN}`)}" https://api.example.com`)).toEqual([
      ["github-pat", "base64", expect.any(String)],
    ]);
    const secret = `apiVersion: v1\nkind: Secret\ndata:\n  GITHUB_TOKEN: ${b64(TOKEN)}\n  NPM_TOKEN: ${b64(fakeNpmToken(3))}\n`;
    expect(scan(secret).map((f) => [f.ruleId, f.line, f.column, f.encoding])).toEqual([
      ["github-pat", 4, 17, "base64"],
      ["npm-access-token", 5, 14, "base64"],
    ]);
  });

  it("finds base64url (with - and _) and padded and unpadded forms", () => {
    const text = `${TOKEN}?>?>`; // ?> encodes to /+ in base64, _- in base64url
    expect(found(`v=${b64url(text)}`)).toEqual([["github-pat", "base64url", expect.any(String)]]);
    expect(found(`v=${b64(TOKEN + "\n")}`)).toEqual([["github-pat", "base64", expect.any(String)]]);
    expect(b64(TOKEN + "\n")).toMatch(/=$/);
  });

  it("redacts the encoded run's groups so no bit of the token is left", () => {
    const text = `auth: ${b64(TOKEN)}\n`;
    expect(redact(text)).toBe("auth: [REDACTED:github-pat]\n");
  });

  it("ignores base64 of binary data, of text without a credential and of ordinary long words", () => {
    const random = Buffer.from(Array.from(randomChars(300, 5), (c, i) => (c.charCodeAt(0) * 7 + i) & 0xff));
    expect(scan(`cert: ${random.toString("base64")}`)).toEqual([]);
    expect(scan(`note: ${b64("just some notes about the deploy, nothing secret here")}`)).toEqual([]);
    expect(scan("internationalization_and_localization_frameworks/considerations")).toEqual([]);
  });
});

describe("escapes", () => {
  it("finds a token with its underscore percent-encoded, at the encoded text", () => {
    const enc = TOKEN.replace("_", "%5F");
    const text = `open https://ci.example.com/hook?token=${enc}&x=1`;
    const [f] = scan(text);
    expect(f).toMatchObject({ ruleId: "github-pat", encoding: "percent", fingerprint: plain.fingerprint });
    expect(text.slice(f!.offset, f!.endOffset)).toBe(enc);
  });

  it("finds JSON \\u escapes, named and numeric HTML character references", () => {
    for (const [enc, encoding] of [
      [TOKEN.replace("_", "\\u005f"), "json-unicode"],
      [TOKEN.replace("_", "&lowbar;"), "html-entity"],
      [TOKEN.replace("_", "&#95;"), "html-entity"],
      [TOKEN.replace("_", "&#x5F;"), "html-entity"],
      [[...TOKEN].map((c) => `&#${c.charCodeAt(0)};`).join(""), "html-entity"],
      [[...TOKEN].map((c) => `%${c.charCodeAt(0).toString(16)}`).join(""), "percent"],
    ] as const) {
      const text = `<p>"${enc}"</p>`;
      expect(found(text), enc).toEqual([["github-pat", encoding, enc]]);
    }
  });

  it("reports a plainly written token once, not again from a decoded word around it", () => {
    const text = `https://example.com/cb?state=a%20b&token=${TOKEN}&next=%2F`;
    expect(scan(text).map((f) => [f.ruleId, f.encoding])).toEqual([["github-pat", undefined]]);
  });

  it("leaves words with escapes but no credential alone", () => {
    expect(scan("R&amp;D &lt;team@example.com&gt; 100%25 \\u00e9t\\u00e9 %E2%9C%93 &unknown; &#xZZ;")).toEqual([]);
  });
});

describe("depth and budget", () => {
  it(`finds a token encoded twice (depth ${MAX_DECODE_DEPTH}) but not three times`, () => {
    const twice = b64(`{"token": "${TOKEN.replace("_", "\\u005f")}"}`);
    expect(scan(`x: ${twice}`).map((f) => f.encoding)).toEqual(["base64/json-unicode"]);
    expect(scan(`x: ${b64(b64(`u:${TOKEN}`))}`).map((f) => f.encoding)).toEqual(["base64/base64"]);
    expect(scan(`x: ${b64(b64(b64(`u:${TOKEN}`)))}`)).toEqual([]);
  });

  it("decodes at most the budget (2 code units per input code unit + 64 Ki) over all depths", () => {
    const budget = decodeBudgetFor(10);
    expect(budget.remaining).toBe(20 + 65_536);
    const run = b64("a".repeat(60_000));
    decodedRuns(`${run} ${run}`, budget);
    expect(budget.remaining).toBe(20 + 65_536 - 60_000); // the second run no longer fits
  });

  it("honours decode: false and teammem:allow on the encoded text's line", () => {
    const text = `auth: ${b64(`u:${TOKEN}`)}`;
    expect(scan(text, { decode: false })).toEqual([]);
    expect(scan(`${text} # teammem:allow`)).toEqual([]);
    expect(scan(text, { allowFingerprints: [plain.fingerprint] })).toEqual([]);
  });
});
