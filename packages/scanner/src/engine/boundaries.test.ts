import { describe, expect, it } from "vitest";
import { RULES } from "../rules/index.js";
import { scan } from "../scan.js";
import { atomCache, boundaryAlphabets, endsToken, regexAlphabet, simpleAlphabet, startsToken, tokenBoundary, trimmedEnd } from "./boundaries.js";

const chars = (table: Uint8Array | undefined) =>
  table === undefined ? undefined : [...table].flatMap((v, c) => (v ? [String.fromCharCode(c)] : [])).join("");

describe("boundaryAlphabets", () => {
  it("takes a token rule's whole pattern, prefix included, lookarounds left out", () => {
    const { start, end } = boundaryAlphabets(/glpat-[a-f0-9]{4}(?!x)/y);
    expect(chars(start)).toBe("-0123456789abcdefglpt");
    expect(chars(end)).toBe(chars(start));
  });
  it("starts from the lead group and ends at the secret group", () => {
    const { start, end } = boundaryAlphabets(/(?<=(?<lead>[0-9]{6,12})):AA(?<secret>[A-Z]{4})/y);
    expect(chars(start)).toBe("0123456789");
    expect(chars(end)).toBe("ABCDEFGHIJKLMNOPQRSTUVWXYZ");
  });
  it("leaves a glue group before the lead out of the token's alphabet", () => {
    const { start } = boundaryAlphabets(/(?<=(?<glue>bot)?(?<lead>[0-9]{6,12})):AA(?<secret>[A-Z]{4})/y);
    expect(chars(start)).toBe("0123456789");
  });
  it("derives nothing on a side that is structure (whitespace, negated classes)", () => {
    expect(boundaryAlphabets(/-----BEGIN KEY-----\n(?<secret>[A-Za-z0-9+/=\n]{64})/y)).toEqual({ start: expect.any(Uint8Array), end: undefined });
    expect(chars(boundaryAlphabets(/-----BEGIN KEY-----\n[A-Z]{4}/y).start)).toBe("-BEGIN");
    expect(boundaryAlphabets(/:\/\/(?<secret>[^\s@]{1,9})@/y).end).toBeUndefined();
    expect(boundaryAlphabets(/ [a-z]{4}/y).start).toBeUndefined();
  });
});

describe("startsToken / endsToken", () => {
  const b = tokenBoundary(/glpat-[A-Za-z0-9_-]{6}/y, ["glpat-"])!;
  const tok = "glpat-aB3_x9";
  const at = (text: string) => {
    const s = text.indexOf(tok);
    return { start: startsToken(b, text, s), end: endsToken(b, text, s + tok.length) };
  };

  it.each([
    ["start and end of text", tok],
    ["spaces", ` ${tok} `],
    ["a diff line's - marker", `\n-${tok}\n`],
    ["Markdown emphasis", `_${tok}_ and __${tok}__`],
    ["a sentence's full stop", `is ${tok}.`],
    ["a JSON \\n escape", `"a\\n${tok}\\tb"`],
    ["quotes and brackets", `("${tok}")`],
    ["a long run of dashes", `text----${tok}----text`],
    ["path separators and a file extension", `team/${tok}/notes.md and token=${tok}.md`],
  ])("finds a token between %s", (_name, text) => expect(at(text)).toEqual({ start: true, end: true }));

  it.each([
    ["a letter before", `x${tok}`, { start: false, end: true }],
    ["a word joined by -", `my-${tok}`, { start: false, end: true }],
    ["a dotted name before", `video_box.${tok}`, { start: false, end: true }],
    ["a letter after", `${tok}x`, { start: true, end: false }],
    ["a name joined by _ after", `${tok}_more`, { start: true, end: false }],
  ])("refuses a token glued to %s", (_name, text, expected) => expect(at(text)).toEqual(expected));

  it("lets : start another field after a token that holds one (issue 10, M2)", () => {
    const tg = tokenBoundary(/(?<=(?<lead>\d{6,12})):AA[A-Za-z0-9_-]{4}/y, [":AA"])!;
    expect(endsToken(tg, "123456:AAab_d:x", 13)).toBe(true);
    expect(endsToken(tg, "123456:AAab_d-x", 13)).toBe(false); // its own punctuation, then a word
  });

  it("lets = assign before a token but not glue after a base64 one", () => {
    const b64 = tokenBoundary(/EAAA[A-Za-z0-9+/]{4}={0,2}/y, ["EAAA"])!;
    expect(startsToken(b64, "KEY=EAAAabcd", 4)).toBe(true);
    expect(startsToken(b64, "MIIB+EAAAabcd", 5)).toBe(false); // inside base64 data
    expect(startsToken(b64, "\n+EAAAabcd", 2)).toBe(true); // a diff line
    expect(endsToken(b64, "EAAAabcd==x", 8)).toBe(false);
  });

  it("finds a token whose alphabet has no / or - in a path segment or a hyphenated id", () => {
    const aws = tokenBoundary(/AKIA[A-Z0-9]{4}/y, ["AKIA"])!;
    expect([startsToken(aws, "team/AKIAABCD/x.md", 5), endsToken(aws, "team/AKIAABCD/x.md", 13)]).toEqual([true, true]);
    expect(startsToken(aws, "laptop-AKIAABCD", 7)).toBe(true);
    expect(startsToken(aws, "MIIB+AKIAABCD", 5)).toBe(false); // + glues a base64-looking prefix
  });

  it("reads an escape sequence before a token as the character it stands for, not as its hex digits", () => {
    const b64 = tokenBoundary(/EAAA[A-Za-z0-9+/]{4}={0,2}/y, ["EAAA"])!;
    for (const pre of ["%3A", "%20", "\\u003c", "\\x3c", "&#60;", "&lt;"]) expect(startsToken(b64, `${pre}EAAAabcd`, pre.length), pre).toBe(true);
    expect(startsToken(b64, "%41EAAAabcd", 3)).toBe(false); // %41 is a letter: glued
    expect(startsToken(b64, "\\\\u003cEAAAabcd", 7)).toBe(false); // an escaped backslash, then the word u003c
  });

  it("takes a + as a form-encoded space after words that start a form value, not inside base64 data", () => {
    const b64 = tokenBoundary(/EAAA[A-Za-z0-9+/]{4}={0,2}/y, ["EAAA"])!;
    expect(startsToken(b64, "authorization=Bearer+EAAAabcd", 21)).toBe(true);
    expect(startsToken(b64, "?q=my+key+EAAAabcd", 10)).toBe(true);
    expect(startsToken(b64, "cert=MIIB+EAAAabcd", 10)).toBe(false); // capitals only: base64 of DER data
    expect(startsToken(b64, "abc/Bearer+EAAAabcd", 11)).toBe(false); // no form value start
  });

  it("starts a token with a distinctive prefix after / or + even when its alphabet holds them", () => {
    const whsec = tokenBoundary(/whsec_[A-Za-z0-9+/]{4}/y, ["whsec_"])!;
    expect(startsToken(whsec, "https://vault.internal/ui/whsec_abcd", 26)).toBe(true);
    expect(startsToken(whsec, "x+whsec_abcd", 2)).toBe(true);
    const short = tokenBoundary(/EAAA[A-Za-z0-9+/]{4}/y, ["EAAA"])!;
    expect(startsToken(short, "MIIB/EAAAabcd", 5)).toBe(false); // a short base64-text prefix inside base64 data
  });

  it("never glues a token that opens with punctuation", () => {
    const url = tokenBoundary(/:\/\/[a-z]{3}/y, ["://"])!;
    expect(startsToken(url, "https://abc", 5)).toBe(true);
  });
});

describe("trimmedEnd", () => {
  const b = tokenBoundary(/tok_[A-Za-z0-9_.=-]{4,12}/y, ["tok_"])!;
  it("drops trailing punctuation of the alphabet except base64 padding", () => {
    expect(trimmedEnd(b, "tok_abcd__", 0, 10)).toBe(8);
    expect(trimmedEnd(b, "tok_abcd.", 0, 9)).toBe(8);
    expect(trimmedEnd(b, "tok_abcd==", 0, 10)).toBe(10);
  });
});

describe("catalog boundaries", () => {
  it("no rule writes its own boundary: no pattern opens with a negative lookbehind or closes with a negative lookahead", () => {
    const handWritten = RULES.filter((r) => /^\(\?<!/.test(r.pattern.source) || /\(\?![^()]*\)$/.test(r.pattern.source)).map((r) => r.id);
    expect(handWritten).toEqual([]);
  });
  it("derives both boundaries for every rule except those whose structure delimits them (reviewed list)", () => {
    const sides = RULES.map((r) => [r.id, tokenBoundary(r.pattern, r.prefixes)] as const);
    // No start boundary by structure (da8ad01): a JDBC URL's password parameter is found in any text
    // glued before `jdbc:` (`url=jdbc:`, `myjdbc:`); the unarmored OpenSSH body and a PPK's
    // Private-Lines section start with a literal their validators check (the key layout, the
    // private part's entropy), so a character glued before them does not make them less certain.
    expect(sides.filter(([, b]) => !b?.before).map(([id]) => id)).toEqual(["database-url-password-parameter", "openssh-unarmored-private-key", "putty-private-key"]);
    expect(sides.filter(([, b]) => !b?.after).map(([id]) => id)).toEqual([
      "database-url-credentials",
      "database-url-password-parameter", // ends where the parameter's value does (`&`, `;`, a quote)
      "http-url-credentials",
      "nuget-config-password",
      "openssh-private-key",
      "openssh-unarmored-private-key", // a key body: ends after its fixed number of base64 characters
      "openvpn-static-key",
      "oracle-jdbc-url-credentials", // the password ends at the `@` before the host
      "pgp-private-key",
      "pkcs-unarmored-private-key", // a key body: ends after its fixed number of base64 characters
      "private-key",
      "ssh2-encrypted-private-key",
      "url-credentials",
    ]);
  });
});

describe("atom alphabets read without the regex engine", () => {
  it("give every catalog rule the same boundaries as the regex engine's reading", () => {
    const plain = atomCache();
    const byRegex = atomCache(true);
    for (const r of RULES) expect([r.id, tokenBoundary(r.pattern, r.prefixes, plain)]).toEqual([r.id, tokenBoundary(r.pattern, r.prefixes, byRegex)]);
    expect(plain.parts.size).toBeGreaterThan(50);
  });
  it("agree with the regex engine on simple atoms, and leave the others to it", () => {
    const simple = ["a", "~", "\\.", "\\/", "\\-", "\\]", "\\$", "\\d", "\\D", "\\w", "\\W", "\\s", "\\S", "\\n", "\\t", "\\0", "[a-z]", "[^a-z]", "[-a]", "[a-]", "[A-Za-z0-9_.=-]", "[\\w.-]", "[^\\s:@/?#'\"<>\\\\]", "[\\]a]", "[$^]", "[ \\t]", "[^\\r\\n]"];
    for (const flags of ["", "u", "s"]) {
      for (const atom of simple) {
        const read = simpleAlphabet(atom, flags);
        if (flags !== "u") expect([atom, flags, read]).toEqual([atom, flags, expect.any(Uint8Array)]);
        // Under `u`, an escape the flag forbids (`\-` outside a class) is left to the engine.
        expect([atom, flags, chars(read ?? regexAlphabet(atom, flags))]).toEqual([atom, flags, chars(regexAlphabet(atom, flags))]);
      }
    }
    for (const [atom, flags] of [["a", "i"], ["[a-z]", "i"], ["[a-z]", "v"], ["\\x41", ""], ["\\u0041", "u"], ["\\p{L}", "u"], ["[\\w-z]", ""], ["\\b", ""], ["[\\b]", ""], ["é", ""], ["[]", ""]] as const) {
      expect([atom, flags, simpleAlphabet(atom, flags)]).toEqual([atom, flags, undefined]);
    }
  });
});

describe("rules whose tokens carry a checksum (Rule.checksum; try17 H1)", () => {
  const checksummed = RULES.filter((r) => r.checksum === true);
  /** Each positive example's token of `rule` (its one finding under the rule alone). */
  const tokens = (rule: (typeof RULES)[number]) =>
    rule.examples().positive.map((example) => {
      const [f] = scan(example, { rules: [rule] });
      return example.slice(f!.offset, f!.endOffset);
    });

  it("are the checksum formats, each with a validator", () => {
    expect(checksummed.map((r) => r.id).sort()).toEqual(["age-secret-key", "atlassian-api-token", "cloudflare-api-token", "github-oauth", "github-pat", "github-refresh-token", "npm-access-token"]);
    for (const r of checksummed) expect(r.validate, r.id).toBeTypeOf("function");
  });

  it("are found glued to a word or a dotted name before them (no start boundary), not glued after", () => {
    for (const rule of checksummed)
      for (const token of tokens(rule)) {
        for (const before of ["MY_", "x.", "abc"]) {
          const text = `${before}${token} end`;
          expect(scan(text, { rules: [rule] }).map((f) => f.offset), JSON.stringify(text)).toEqual([before.length]);
        }
        expect(scan(`${token}x`, { rules: [rule] }), rule.id).toEqual([]);
      }
  });

  it("a rule without a checksum is still refused glued to a word before it", () => {
    for (const id of ["github-fine-grained-pat", "aws-access-token", "gitlab-pat"]) {
      const rule = RULES.find((r) => r.id === id)!;
      expect(rule.checksum, id).toBeUndefined();
      for (const token of tokens(rule)) {
        expect(scan(`abc${token} end`, { rules: [rule] }), id).toEqual([]);
        expect(scan(`abc ${token} end`, { rules: [rule] }), id).toHaveLength(1);
      }
    }
  });
});
