/**
 * Issue 10, gaps found by a hostile try-out: a token written so that a Markdown renderer or a
 * browser shows it whole while the raw text splits it. Each kind runs over every positive example
 * of every rule (as src/rules/contexts.test.ts does), and must give the same rule and fingerprint
 * as the bare example, at the token's start in the text as written:
 * 1. Markdown backslash escapes (`ghp\_…`, CommonMark §2.4), removed by engine/normalize.ts;
 * 2. invisible characters (Unicode Default_Ignorable_Code_Point and bidi controls: soft hyphen,
 *    LRM/RLM, bidi embeddings and isolates, tag characters …), removed by engine/normalize.ts;
 * 3. numeric HTML character references without their `;` (`&#95`, `&#x5f`), decoded by
 *    engine/decode.ts as browsers decode them.
 */
import { describe, expect, it } from "vitest";
import type { Rule } from "./rule.js";
import { redact, scan } from "./scan.js";
import { RULES } from "./rules/index.js";
import { INVISIBLE_RANGES } from "./engine/normalize.js";
import { fakeGithubToken } from "./fakes.js";

interface Bare {
  readonly example: string;
  readonly offset: number;
  readonly endOffset: number;
  readonly fingerprint: string;
}

/** Each positive example of `rule` with its one finding under the rule alone (the bare finding). */
function bareFindings(rule: Rule): Bare[] {
  return rule.examples().positive.map((example) => {
    const found = scan(example, { rules: [rule] });
    expect(found, "the bare example gives one finding").toHaveLength(1);
    const [f] = found;
    return { example, offset: f!.offset!, endOffset: f!.endOffset!, fingerprint: f!.fingerprint };
  });
}

/** The findings of `text` under `rule` alone, as [offset, fingerprint]. */
const under = (text: string, rule: Rule) => scan(text, { rules: [rule] }).map((f) => [f.offset, f.fingerprint]);

const ASCII_PUNCTUATION = /[!-/:-@[-`{-~]/g;
const isPunctuation = (ch: string | undefined): boolean => ch !== undefined && /^[!-/:-@[-`{-~]$/.test(ch);

describe.each(RULES.map((r) => [r.id, r] as const))("%s", (_id, rule) => {
  const bare = bareFindings(rule);

  it("is found with every ASCII punctuation character of its token backslash-escaped (Markdown)", () => {
    for (const { example, offset, endOffset, fingerprint } of bare) {
      const token = example.slice(offset, endOffset);
      const escaped = example.slice(0, offset) + token.replace(ASCII_PUNCTUATION, "\\$&") + example.slice(endOffset);
      // The token starts at its first character: after the backslash when that character is escaped.
      const start = offset + (isPunctuation(token[0]) ? 1 : 0);
      expect(under(escaped, rule), JSON.stringify(escaped.slice(0, 300))).toEqual([[start, fingerprint]]);
    }
  });

  it("is found with each ASCII punctuation character of its token escaped alone, and with the whole example escaped", () => {
    for (const { example, offset, endOffset, fingerprint } of bare) {
      for (let i = offset; i < endOffset; i++) {
        if (!isPunctuation(example[i])) continue;
        const escaped = example.slice(0, i) + "\\" + example.slice(i);
        expect(under(escaped, rule), `escaped at ${i - offset}: ${JSON.stringify(escaped.slice(0, 300))}`).toEqual([[offset + (i === offset ? 1 : 0), fingerprint]]);
      }
      // Escaping every punctuation character of the text (a backslash as \\) is undone exactly.
      const all = example.replace(ASCII_PUNCTUATION, "\\$&");
      const shift = example.slice(0, offset).match(ASCII_PUNCTUATION)?.length ?? 0;
      const found = under(all, rule);
      expect(found, JSON.stringify(all.slice(0, 300))).toHaveLength(1);
      expect(found[0]![1]).toBe(fingerprint);
      expect(found[0]![0]).toBe(offset + shift + (isPunctuation(example[offset]) ? 1 : 0));
    }
  });

  it("is found with an invisible character (each of them) inside its token", () => {
    const missed: string[] = [];
    bare.forEach(({ example, offset, endOffset, fingerprint }, k) => {
      const inside = [offset + 1, (offset + endOffset) >> 1, endOffset - 1];
      INVISIBLES.forEach((ch, n) => {
        const at = inside[n % 3]!;
        const text = example.slice(0, at) + ch + example.slice(at);
        const got = under(text, rule);
        if (got.length !== 1 || got[0]![0] !== offset || got[0]![1] !== fingerprint) missed.push(`[${k}] U+${ch.codePointAt(0)!.toString(16)} at ${at - offset}: ${JSON.stringify(got)}`);
      });
    });
    expect(missed).toEqual([]);
  });

  it("is found after an ANSI escape sequence (terminal colours, an OSC 8 link) and before a reset, at its token's start (try17 H1)", () => {
    const missed: string[] = [];
    bare.forEach(({ example, offset, endOffset, fingerprint }, k) => {
      for (const open of ANSI_OPENERS) {
        const text = example.slice(0, offset) + open + example.slice(offset, endOffset) + `${ESC}[0m` + example.slice(endOffset);
        const got = under(text, rule);
        if (got.length !== 1 || got[0]![0] !== offset + open.length || got[0]![1] !== fingerprint) missed.push(`[${k}] ${JSON.stringify(open)}: ${JSON.stringify(got)}`);
      }
    });
    expect(missed).toEqual([]);
  });

  it("gives with numeric HTML references without ; what it gives with them (its token's punctuation and last character)", () => {
    for (const { example, offset, endOffset, fingerprint } of bare) {
      for (const form of ["decimal", "hex"] as const) {
        const written = htmlReferences(example, offset, endOffset, form);
        if (written === undefined) continue;
        // (A plain finding's value holds the references as written, `;` or not: its fingerprint differs.)
        const findings = (text: string) => scan(text, { rules: [rule] }).map((f) => [f.offset, f.encoding === undefined ? "plain" : f.fingerprint, f.encoding]);
        const semi = findings(written.semi);
        const bareRefs = findings(written.bare);
        expect(bareRefs, JSON.stringify(written.bare.slice(0, 300))).toEqual(semi);
        tally.cases++;
        if (bareRefs.length === 1 && bareRefs[0]![0] === offset && bareRefs[0]![1] === fingerprint && bareRefs[0]![2] === "html-entity") tally.found++;
      }
    }
  });
});

const ESC = "\x1b";
/** What terminal output puts before a token: bold, a colour, a 256-colour, an OSC 8 hyperlink ended by BEL. */
const ANSI_OPENERS = [`${ESC}[1m`, `${ESC}[0;32m`, `${ESC}[38;5;196m`, `${ESC}]8;;https://x\x07`];

describe("ANSI escape sequences (try17 H1)", () => {
  const token = fakeGithubToken("ghp_", 7);
  const ids = (text: string) => scan(text).map((f) => [f.ruleId, f.offset]);

  it("are removed before matching: a token right after one is found where it starts, with or without a reset after it", () => {
    for (const open of [...ANSI_OPENERS, `${ESC}[?25h`, `${ESC}]8;;https://x${ESC}\\`, `${ESC}M`]) {
      for (const lead of ["", "token ", "a\n", "- "]) {
        for (const close of ["", `${ESC}[0m`, `${ESC}]8;;\x07`, `${ESC}[0m.`]) {
          const text = lead + open + token + close + "\n";
          expect(ids(text), JSON.stringify(text)).toEqual([["github-pat", lead.length + open.length]]);
        }
      }
    }
  });

  it("a sequence alone, an unterminated one, or one before non-token text gives nothing", () => {
    for (const text of [
      `${ESC}[1m`,
      `${ESC}[1mbold${ESC}[0m text`,
      `${ESC}]8;;https://x${ESC}[0m`,
      `${ESC}[38;5;196mghp_ is a prefix${ESC}[0m`,
      `${ESC}[1m${ESC}[${ESC}`,
    ])
      expect(ids(text), JSON.stringify(text)).toEqual([]);
  });

  it("an unterminated or over-long sequence is not removed: the token stays glued to what follows it", () => {
    // An OSC without BEL or ST; a CSI of more than 64 code units. Each reads as written, where
    // `xgithub_pat_` and `mgithub_pat_` glue (a rule without a checksum: a checksum rule needs no
    // start boundary, `Rule.checksum`).
    const fine = RULES.find((r) => r.id === "github-fine-grained-pat")!;
    const example = fine.examples().positive[0]!;
    const [f] = scan(example, { rules: [fine] });
    const plain = example.slice(f!.offset, f!.endOffset);
    const longCsi = `${ESC}[${"0;".repeat(32)}m`;
    for (const text of [`${ESC}]8;;https://x${plain}`, `${longCsi}${plain}`])
      expect(ids(text).filter(([id]) => id === fine.id), JSON.stringify(text.slice(0, 80))).toEqual([]);
    expect(ids(`${ESC}[1m${plain}`)).toEqual([[fine.id, 4]]);
  });
});

/** Examples written with numeric references without `;`, and of those, found as the bare example. */
const tally = { cases: 0, found: 0 };

describe("numeric HTML references without ;, over the catalog", () => {
  it("find the rule's token in most examples (the others are not found with ; either: context outside the escaped word, key blocks)", () => {
    // 872 of 935 when written; 901 of 1002 after try16 F3 added 8 examples of layouts to
    // aws-secret-access-key-assignment, whose name (its context) lies outside the escaped word (the
    // same examples are missed with the `;`: the test above checks they give the same).
    expect(tally.cases).toBeGreaterThan(800);
    expect(tally.found / tally.cases, `${tally.found} of ${tally.cases}`).toBeGreaterThan(0.88);
  });
});

/**
 * `example` with its token `[offset, endOffset)`'s punctuation (those the decode layer decodes) and
 * its last character written as numeric references, `form` digits, with (`semi`) and without
 * (`bare`) the `;`. A character followed by a digit (decimal), a hex digit (hex) or a `;` stays
 * plain: a browser would read that character as part of the reference. Undefined when nothing is
 * written so.
 */
function htmlReferences(example: string, offset: number, endOffset: number, form: "decimal" | "hex"): { semi: string; bare: string } | undefined {
  let semi = example.slice(0, offset);
  let bare = semi;
  let escapes = 0;
  for (let i = offset; i < endOffset; i++) {
    const ch = example[i]!;
    const next = example[i + 1] ?? "";
    const free = next !== ";" && (form === "decimal" ? !/[0-9]/.test(next) : !/[0-9A-Fa-f]/.test(next));
    if (free && (TOKEN_PUNCTUATION.includes(ch) || i === endOffset - 1)) {
      const ref = form === "decimal" ? `&#${ch.charCodeAt(0)}` : `&#x${ch.charCodeAt(0).toString(16)}`;
      semi += ref + ";";
      bare += ref;
      escapes++;
    } else {
      semi += ch;
      bare += ch;
    }
  }
  return escapes === 0 ? undefined : { semi: semi + example.slice(endOffset), bare: bare + example.slice(endOffset) };
}

/** The punctuation characters a token holds that the decode layer decodes escapes of (engine/decode.ts). */
const TOKEN_PUNCTUATION = "_-.+/=~:$";

/**
 * Every invisible BMP character (engine/normalize.ts, INVISIBLE_RANGES) and the ends of each astral
 * range plus a few tag characters (written as surrogate pairs).
 */
const INVISIBLES: readonly string[] = INVISIBLE_RANGES.flatMap(([from, to]) => {
  if (to <= 0xffff) return Array.from({ length: to - from + 1 }, (_, k) => String.fromCharCode(from + k));
  return [from, to, ...(from === 0xe0000 ? [0xe0001, 0xe0020, 0xe0041, 0xe007f, 0xe0100] : [])].map((cp) => String.fromCodePoint(cp));
});

describe("the three kinds, on one GitHub token", () => {
  const tok = fakeGithubToken("ghp_", 77);
  const plain = scan(tok)[0]!;
  const at = (text: string) => scan(text).map((f) => [f.ruleId, f.line, f.column, f.fingerprint === plain.fingerprint, f.encoding]);

  it.each([
    ["ghp\\_ in a sentence", `Use ${tok.replace("_", "\\_")} here.`, 5],
    ["escaped twice over (\\\\\\_: an escaped backslash, then an escaped _)", `x ${tok.replace("_", "\\\\\\_")}`, -1],
    ["soft hyphen inside", `k=${tok.slice(0, 9)}\u00AD${tok.slice(9)}`, 3],
    ["right-to-left override inside", `k=${tok.slice(0, 9)}\u202E${tok.slice(9)}`, 3],
    ["tag characters inside (surrogate pairs)", `k=${tok.slice(0, 9)}\u{E0041}\u{E0042}${tok.slice(9)}`, 3],
    ["BOM inside", `k=${tok.slice(0, 9)}\uFEFF${tok.slice(9)}`, 3],
    ["Hangul filler before, glued to a word", `TOKEN\u3164${tok}`, 7],
    ["soft hyphen before, glued to a word", `word\u00AD${tok}`, 6],
    ["backslash escape before, glued to a word", `word\\_${tok}`, 7],
    ["&#95 without ;", `t=ghp&#95${tok.slice(4)}`, 3],
    ["&#x5f without ; (next character not a hex digit)", `t=ghp&#x5f${tok.slice(4).replace(/^[0-9a-fA-F]/, "Z")}`, 3],
  ])("%s", (_name, text, column) => {
    const f = at(text);
    if (column === -1) {
      // `\\` renders a backslash: the token reads ghp\_… once rendered, and is not one.
      expect(f.filter((x) => x[0] === "github-pat")).toEqual([]);
      return;
    }
    expect(f.slice(0, 1).map((x) => [x[0], x[1], x[2]])).toEqual([["github-pat", 1, column]]);
  });

  it("reads &#x5f followed by a hex digit as a browser does: one longer reference, not _", () => {
    let seed = 1;
    while (!/^ghp_[0-9a-fA-F]/.test(fakeGithubToken("ghp_", seed))) seed++;
    const body = fakeGithubToken("ghp_", seed).slice(4);
    expect(scan(`t=ghp&#x5f${body}`).filter((f) => f.ruleId === "github-pat")).toEqual([]);
    expect(scan(`t=ghp&#x5f;${body}`).map((f) => f.ruleId)).toEqual(["github-pat"]);
    expect(scan(`t=ghp&#95${body}`).map((f) => f.ruleId)).toEqual(/^[0-9]/.test(body) ? [] : ["github-pat"]);
  });

  it("redacts an escaped token whole, and leaves other escapes alone", () => {
    const text = `see ${tok.replace("_", "\\_")} and \\*bold\\* C:\\\\Users`;
    expect(redact(text)).toBe("see [REDACTED:github-pat] and \\*bold\\* C:\\\\Users");
  });

  it("finds tokens before and after removals with positions in the text as written", () => {
    const other = fakeGithubToken("ghp_", 78);
    for (const sep of ["\\*", "\u00AD", "\u{E0020}", "\r\n\\_", "\u200E\r\n"]) {
      const text = `a ${tok} b${sep}c ${other}\n${tok.replace("_", "\\_")}`;
      const f = scan(text);
      expect(f.map((x) => text.slice(x.offset, x.endOffset).replace(/\\/g, "")), JSON.stringify(sep)).toEqual([tok, other, tok]);
    }
  });
});
