/**
 * try19 F1: a token split across two string literals (`"ghp_…" +\n  "…"`) or cut by a plain line
 * break (`ghp_…\n…`) is reported at the first part's position, with the rule of the whole token, its
 * fingerprint and the seam as `encoding` (engine/joins.ts). Near misses do not fire.
 */
import { describe, expect, it } from "vitest";
import { breakChecksum, fakeGithubPat, fakeNpmToken } from "./testing.js";
import { scan } from "./scan.js";
import { compileRules } from "./engine/compile.js";
import { MAX_SEAM_GAP, seamAt } from "./engine/joins.js";
import { RULES } from "./rules/index.js";
import { URL_PREFIXES } from "./rule-helpers/url-credentials.js";

const TOKEN = fakeGithubPat(19);
const NPM = fakeNpmToken(19);
const plain = scan(TOKEN)[0]!;

/** Findings as [ruleId, encoding, line, column, the text the finding covers]. */
const found = (text: string) => scan(text).map((f) => [f.ruleId, f.encoding, f.line, f.column, text.slice(f.offset, f.endOffset)]);

describe("string-literal concatenation", () => {
  const a = TOKEN.slice(0, 20);
  const b = TOKEN.slice(20);
  const cases: [string, string, string][] = [
    ["JavaScript/Java + over a line break (try19 F1)", `token = "${a}" +\n  "${b}"\n`, `"${a}" +\n  "${b}`],
    ["+ on one line, single quotes", `t = '${a}' + '${b}';`, `'${a}' + '${b}`],
    ["+ leading the continuation line", `t = "${a}"\n    + "${b}";`, `"${a}"\n    + "${b}`],
    ["PHP/Perl .", `$t = "${a}" . "${b}";`, `"${a}" . "${b}`],
    ["PHP . without spaces", `$t = '${a}'.'${b}';`, `'${a}'.'${b}`],
    ["Lua ..", `t = "${a}" .. "${b}"`, `"${a}" .. "${b}`],
    ["C/Python adjacent literals on one line", `t = ("${a}" "${b}")`, `"${a}" "${b}`],
    ["C/Python adjacent literals over a line break", `t = ("${a}"\n     "${b}")`, `"${a}"\n     "${b}`],
    ["JavaScript template literals", "t = `" + a + "` +\n `" + b + "`", "`" + a + "` +\n `" + b],
    ["CRLF line ends", `token = "${a}" +\r\n  "${b}"\r\n`, `"${a}" +\r\n  "${b}`],
  ];
  it.each(cases)("%s: reported at the first literal with the whole token's fingerprint", (_what, text, covered) => {
    const [f] = scan(text);
    expect(found(text)).toEqual([["github-pat", "string-concatenation", 1, text.indexOf(a) + 1, covered.slice(1)]]);
    expect(f!.fingerprint).toBe(plain.fingerprint);
    expect(f!.preview).toBe("ghp_****");
  });

  it("joins at every cut of the token, for an npm token too", () => {
    for (let cut = 1; cut < TOKEN.length; cut++) {
      const text = `x = "${TOKEN.slice(0, cut)}" +\n  "${TOKEN.slice(cut)}"`;
      // A cut inside the prefix leaves no prefix in the first literal: not joined (the gate).
      expect(found(text).map((f) => f[0]), `cut ${cut}`).toEqual(cut < 4 ? [] : ["github-pat"]);
    }
    expect(found(`n = "${NPM.slice(0, 12)}" + "${NPM.slice(12)}"`).map((f) => f[0])).toEqual(["npm-access-token"]);
  });

  it("joins no doubled quote, no two literals of different quotes, no literal after a blank line, no wrong checksum", () => {
    const a20 = TOKEN.slice(0, 20);
    const b20 = TOKEN.slice(20);
    expect(found(`"${a20}""${b20}"`)).toEqual([]); // CSV's doubled quote: one field holding a quote
    expect(found(`"${a20}" + '${b20}'`)).toEqual([]);
    expect(found(`"${a20}" +\n\n  "${b20}"`)).toEqual([]);
    expect(found(`"${a20}" - "${b20}"`)).toEqual([]);
    const broken = breakChecksum(TOKEN);
    expect(found(`"${broken.slice(0, 20)}" + "${broken.slice(20)}"`)).toEqual([]);
  });

  it("reports a whole token in one literal once, plain, with the next literal left alone", () => {
    expect(found(`t = "${TOKEN}" + "abc"`)).toEqual([["github-pat", undefined, 1, 6, TOKEN]]);
  });
});

describe("a token cut by a plain line break", () => {
  it("joins a checksum token cut at any place after its prefix with the next line's leading token characters (try19 F1)", () => {
    for (let cut = 4; cut < TOKEN.length; cut++) {
      const text = `note:\n${TOKEN.slice(0, cut)}\n${TOKEN.slice(cut)}\nmore\n`;
      expect(found(text), `cut ${cut}`).toEqual([["github-pat", "line-break", 2, 1, `${TOKEN.slice(0, cut)}\n${TOKEN.slice(cut)}`]]);
    }
    const indented = `  - ${TOKEN.slice(0, 18)}\n    ${TOKEN.slice(18)}`;
    expect(found(indented)).toEqual([["github-pat", "line-break", 1, 5, `${TOKEN.slice(0, 18)}\n    ${TOKEN.slice(18)}`]]);
    expect(scan(indented)[0]!.fingerprint).toBe(plain.fingerprint);
  });

  it("does not join two unrelated lines (near misses)", () => {
    const a = TOKEN.slice(0, 18);
    expect(found(`${a}\nAnd then some words follow here`)).toEqual([]);
    expect(found(`${a}\nabcdefghijklmnopqrstuvwxyz0123456789abcd`)).toEqual([]);
    expect(found(`ghp_\nabcdefghijklmnopqrstuvwxyz0123456789`)).toEqual([]);
    expect(found(`${a}\n\n${TOKEN.slice(18)}`)).toEqual([]); // a blank line between
    const broken = breakChecksum(TOKEN);
    expect(found(`${broken.slice(0, 18)}\n${broken.slice(18)}`)).toEqual([]);
  });

  it("joins only rules whose token carries a checksum: a rule without one is not joined across a line break", () => {
    const key = `AKIA${"Q7XK2M9WPL3RT5VB".slice(0, 16)}`;
    expect(found(key).map((f) => f[0])).toEqual(["aws-access-token"]);
    expect(found(`${key.slice(0, 10)}\n${key.slice(10)}`)).toEqual([]);
  });
});

describe("which missed prefix hits read their token run (catalog.joins: a cost, not what is found)", () => {
  const catalog = compileRules(RULES);
  const joinsOf = (prefix: string) => catalog.joins[catalog.automaton.prefixes.indexOf(prefix)];

  it("none for a prefix of pair rules only; line breaks for a checksum rule's; the URL rules' only with an @ close enough after the hit", () => {
    expect(joinsOf("SK")).toBeUndefined(); // Twilio's pair rule: matchJoined tries no pair rule
    expect(joinsOf("ghp_")).toMatchObject({ lineBreak: true, literal: undefined });
    expect(joinsOf("s.")).toMatchObject({ lineBreak: false, literal: undefined });
    for (const p of URL_PREFIXES) expect(joinsOf(p), p).toMatchObject({ lineBreak: false, literal: "@" });
  });

  it("keeps no seam whose two parts, with the code unit after them, are shorter than the prefix's shortest match; one just long enough joins", () => {
    expect(joinsOf("ghp_")).toMatchObject({ shortest: 40 }); // ghp_ + 36
    // 39 code units in two parts (plus the closing quote): no match of 40 fits; 40: the token.
    const a = TOKEN.slice(0, 20);
    expect(found(`"${a}" + "${TOKEN.slice(20, 39)}"`)).toEqual([]);
    expect(found(`"${a}" + "${TOKEN.slice(20)}"`).map((f) => [f[0], f[1]])).toEqual([["github-pat", "string-concatenation"]]);
    expect(found(`${a}\n${TOKEN.slice(20)}\n`).map((f) => [f[0], f[1]])).toEqual([["github-pat", "line-break"]]);
  });

  it("MAX_SEAM_GAP bounds the code units between the two parts of the longest seam", () => {
    const blanks = " ".repeat(64);
    for (const text of [`"abc"${blanks}..${blanks}\n${blanks}"def"`, `"abc"${blanks}\n${blanks}..${blanks}"def"`]) {
      expect(seamAt(text, 4)).toEqual({ kind: "string-concatenation", next: 4 + MAX_SEAM_GAP });
      expect(seamAt(text.replace(blanks, blanks + " "), 4)).toBeUndefined();
    }
  });

  it("joins a token written inside a URL's token run (the `://` hit read that run and hid the token's own hit)", () => {
    const a = TOKEN.slice(0, 20);
    const b = TOKEN.slice(20);
    for (const text of [`u = "https://example.com/?token=${a}" +\n  "${b}"`, `u = "redis://${a}" + "${b}"`]) {
      expect(found(text).map((f) => [f[0], f[1], f[4]]), text).toEqual([["github-pat", "string-concatenation", text.slice(text.indexOf(a), text.lastIndexOf('"'))]]);
    }
  });
});
