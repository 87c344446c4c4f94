/**
 * Issue 10, "Encoded credentials": a token present only in encoded form (base64 of `user:<token>` in
 * a Docker config or a Basic header, a Kubernetes Secret value, base64url, percent-encoding, JSON
 * `\u` escapes, HTML character references) is reported at the encoded text's position, with the
 * decoded token's rule, its fingerprint and the encoding.
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { decodeBudgetFor, decodedRuns, MAX_DECODE_DEPTH } from "./engine/decode.js";
import { breakChecksum, fakeGithubPat, fakeNpmToken, randomChars } from "./testing.js";
import { redact, scan } from "./scan.js";
import { RULES } from "./rules/index.js";

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

describe("base64 glued to base64-alphabet characters before or after it (issue 10)", () => {
  // The glued characters join the run: its groups are not the encoded text's (1-3 characters shift
  // every byte, 4 or more add groups of their own), and unpadded, they add bytes after its end
  // (engine/realign.ts). Each case must give the token's rule where its encoded groups are.
  const tokens = [TOKEN, fakeNpmToken(3), `github_pat_${randomChars(22, 5)}_${randomChars(59, 6)}`];
  // "", "usr:", "u:": the token's first byte at each offset in a 3-byte group.
  const leads = ["", "usr:", "u:"];
  const glues = ["/", "+", "-", "_", "a", "Z", "0", "9", "w", "abc", "Zg", "secrets/", "sha512-", "data-base64", "film"];
  const encodings = {
    base64: (s: string) => b64(s),
    base64url: (s: string) => b64url(s).padEnd(Math.ceil(b64url(s).length / 4) * 4, "="),
  };
  const cases: [string, string, string, keyof typeof encodings, "before" | "after" | "both", boolean][] = [];
  for (const token of tokens)
    for (const lead of leads)
      for (const glue of glues)
        for (const side of ["before", "after", "both"] as const)
          for (const encoding of ["base64", "base64url"] as const) for (const padded of [true, false]) cases.push([token, lead, glue, encoding, side, padded]);

  it(`finds every token after every glue, before and after it, both alphabets, padded or not (${cases.length} cases)`, () => {
    const missed: string[] = [];
    for (const [token, lead, glue, encoding, side, padded] of cases) {
      let encoded = encodings[encoding](lead + token);
      if (!padded) encoded = encoded.replace(/=+$/, "");
      const before = side === "after" ? "" : glue;
      const text = `value: ${before}${encoded}${side === "before" ? "" : glue} end\n`;
      const at = text.indexOf(encoded);
      const hits = scan(text).filter((f) => f.ruleId === scan(token)[0]!.ruleId);
      // Where the token's groups are: from the group holding its first byte, to at least the
      // character holding its last bits and at most the end of their group (which an unpadded run
      // shares with the characters glued after it).
      const bytesEnd = lead.length + token.length;
      const ok = hits.some(
        (f) =>
          f.offset === at + Math.floor(lead.length / 3) * 4 &&
          f.endOffset! >= at + Math.ceil((bytesEnd * 4) / 3) &&
          f.endOffset! <= at + Math.ceil(bytesEnd / 3) * 4 &&
          Buffer.from(text.slice(f.offset, f.endOffset), "base64").toString("latin1").includes(token) &&
          f.fingerprint === scan(token)[0]!.fingerprint,
      );
      if (!ok) missed.push(`${token.slice(0, 4)} ${JSON.stringify(lead)} ${JSON.stringify(glue)} ${side} ${encoding} ${padded ? "padded" : "unpadded"}`);
    }
    expect(missed).toEqual([]);
  });

  it("finds them too in text with CRLF line ends (normalised first: every run is tried, cut only when it holds a gate)", () => {
    const missed: string[] = [];
    for (const [token, lead, glue, encoding, side, padded] of cases.filter(([, , glue]) => ["/", "w", "film", "secrets/"].includes(glue))) {
      let encoded = encodings[encoding](lead + token);
      if (!padded) encoded = encoded.replace(/=+$/, "");
      const text = `value:\r\n${side === "after" ? "" : glue}${encoded}${side === "before" ? "" : glue}\r\n`;
      if (!scan(text).some((f) => f.ruleId === scan(token)[0]!.ruleId && f.offset === text.indexOf(encoded) + Math.floor(lead.length / 3) * 4)) {
        missed.push(`${token.slice(0, 4)} ${JSON.stringify(lead)} ${JSON.stringify(glue)} ${side} ${encoding} ${padded ? "padded" : "unpadded"}`);
      }
    }
    expect(missed).toEqual([]);
  });

  it("reports nothing for base64 of text without a credential, binary or a near-miss token, glued the same ways", () => {
    const random = Buffer.from(Array.from(randomChars(300, 7), (c, i) => (c.charCodeAt(0) * 13 + i) & 0xff));
    const nearMiss = breakChecksum(TOKEN);
    expect(scan(nearMiss)).toEqual([]);
    const payloads = [
      Buffer.from("just some notes about the deploy, nothing secret here").toString("base64"),
      random.toString("base64"),
      random.toString("base64url"),
      b64(`user:${nearMiss}`),
      b64url(nearMiss),
      b64(`user:${TOKEN.slice(0, 30)}`), // cut short
    ];
    const found: string[] = [];
    for (const payload of payloads)
      for (const glue of glues)
        for (const text of [`x ${glue}${payload} y`, `x ${payload}${glue} y`, `x ${glue}${payload.replace(/=+$/, "")}${glue} y`])
          if (scan(text).length > 0) found.push(text);
    expect(found).toEqual([]);
  });
});

describe("every rule's positive examples, base64-encoded", () => {
  it("are found at every offset in a 3-byte group, in both alphabets, encoded once and twice", () => {
    const missed: string[] = [];
    let tries = 0;
    for (const rule of RULES) {
      rule.examples().positive.forEach((example, k) => {
        // (A base64url run without `-` or `_` is plain base64: the encoding names what the run holds.)
        const holds = (text: string, layers: number, what: string): void => {
          tries++;
          const encoding = new RegExp(`^base64(?:url)?${layers === 2 ? "/base64(?:url)?" : ""}$`);
          if (!scan(text).some((f) => f.ruleId === rule.id && encoding.test(f.encoding ?? ""))) missed.push(`${rule.id}[${k}] ${what}`);
        };
        for (let offset = 0; offset < 3; offset++) {
          // Spaces shift the example's bytes in the 3-byte groups without gluing anything to its token.
          const bytes = Buffer.from(" ".repeat(offset) + example, "utf8");
          for (const encoding of ["base64", "base64url"] as const) {
            const once = bytes.toString(encoding);
            holds(`value: ${once}\n`, 1, `${encoding} @${offset}`);
            for (let offset2 = 0; offset2 < 3; offset2++) {
              holds(`value: ${Buffer.from(" ".repeat(offset2) + once, "latin1").toString(encoding)}\n`, 2, `${encoding} @${offset}/${offset2} twice`);
            }
          }
        }
      });
    }
    expect(tries).toBeGreaterThan(RULES.length * 2 * 24);
    expect(missed).toEqual([]);
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

  it("finds an escaped token after refused introducers close together or far apart (read inline, or found by indexOf)", () => {
    const befores = ["", "&a&a&a&a&a&a", "a = b, 100% and R&D; ", `${"&a".repeat(9)} a = b `, "=====", "a=b1=a=b1=", `x${"=".repeat(7)}y ${"%".repeat(7)} `, `a = b ${"^".repeat(9)}[`];
    for (const [enc, encoding] of [
      [TOKEN.replace("_", "%5F"), "percent"],
      [TOKEN.replace("_", "=5F"), "quoted-printable"],
      [TOKEN.replace("_", "&#95;"), "html-entity"],
    ] as const) {
      for (const before of befores) {
        const text = `${before} ${enc} a=b 100%`;
        expect(found(text), text).toEqual([["github-pat", encoding, enc]]);
      }
    }
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

describe("hex and octal escapes, quoted-printable (try14 F7)", () => {
  const hex = (s: string) => [...s].map((c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`).join("");
  const octal = (s: string) => [...s].map((c) => `\\${c.charCodeAt(0).toString(8).padStart(3, "0")}`).join("");
  const qp = (s: string) => [...s].map((c) => `=${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`).join("");

  it("finds C/JavaScript/Python \\x escapes and C/bash octal escapes ($'…', printf), at the encoded text", () => {
    for (const [text, enc, encoding] of [
      [`token = "${TOKEN.replace("_", "\\x5f")}"`, TOKEN.replace("_", "\\x5f"), "hex-escape"],
      [`s = '${hex(TOKEN)}'`, hex(TOKEN), "hex-escape"],
      [`export GH_TOKEN=$'${TOKEN.replace("_", "\\137")}'`, TOKEN.replace("_", "\\137"), "octal-escape"],
      [`printf '${octal(TOKEN)}'`, octal(TOKEN), "octal-escape"],
      // JSON of a Python string: the backslash escaped once more, found at depth 2.
      [`{"code": "t = '${TOKEN.replace("_", "\\\\x5f")}'"}`, TOKEN.replace("_", "\\\\x5f"), "json-unicode/hex-escape"],
    ] as const) {
      expect(found(text), text).toEqual([["github-pat", encoding, enc]]);
      expect(scan(text)[0]!.fingerprint).toBe(plain.fingerprint);
    }
  });

  it("finds quoted-printable =XX and a token cut by a soft line break (=, LF or CR LF) in a MIME body", () => {
    // An encoder breaks a line at 76 characters, the `=` included.
    const pre = "Hello, here is the new token for the deploy pipeline; keep it: ";
    const head = TOKEN.slice(0, 75 - pre.length);
    const rest = TOKEN.slice(head.length);
    const qpHead = `${TOKEN.slice(0, 3)}=5F${TOKEN.slice(4, 73 - pre.length)}`;
    expect(`${pre}${head}=`).toHaveLength(76);
    expect(`${pre}${qpHead}=`).toHaveLength(76);
    for (const [body, enc] of [
      [`token: ${TOKEN.replace("_", "=5F")}`, TOKEN.replace("_", "=5F")],
      [`token: ${qp(TOKEN)}`, qp(TOKEN)],
      [`${pre}${head}=\n${rest} - keep it safe.`, `${head}=\n${rest}`],
      [`${pre}${head}=\r\n${rest} - keep it safe.`, `${head}=\r\n${rest}`],
      [`${pre}${qpHead}=\n${TOKEN.slice(73 - pre.length)}`, `${qpHead}=\n${TOKEN.slice(73 - pre.length)}`],
    ] as const) {
      const text = `Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: quoted-printable\n\n${body}\n`;
      expect(found(text), body).toEqual([["github-pat", "quoted-printable", enc]]);
      expect(scan(text)[0]!.fingerprint).toBe(plain.fingerprint);
    }
  });

  it("does not join a token ending in = (base64 padding) to the next line unless the line is as long as an encoder makes them", () => {
    // A value ending in `=` before a line break, on a line shorter than 60 characters: the plain finding, not a longer joined one.
    for (const eol of ["\n", "\r\n"]) {
      const text = `KEY=${TOKEN}=${eol}next line${eol}`;
      expect(found(text), JSON.stringify(eol)).toEqual([["github-pat", undefined, TOKEN]]);
    }
  });

  it("leaves assignments, lowercase =xx, padding before a line break, paths and other backslash escapes alone", () => {
    const text = [
      "PORT=3000 TIMEOUT=30 color=FF0000 a == b",
      "x =",
      "foo = 1",
      `${b64("some text")}=`,
      "AB",
      "C:\\100\\Users $'\\n\\t' \\xZZ \\400 =5f =zz",
    ].join("\n");
    expect(scan(text)).toEqual([]);
    expect(decodedRuns("a == b\nx =\nfoo color=ff0000 \\xZZ \\400 $'\\n' =\n=\n", decodeBudgetFor(100)).count).toBe(0);
  });

  it("does not find a near-miss token escaped these ways", () => {
    const near = breakChecksum(TOKEN);
    const pre = "Hello, here is the new token for the deploy pipeline; keep it: ";
    for (const text of [`"${near.replace("_", "\\x5f")}"`, `$'${near.replace("_", "\\137")}'`, `${near.replace("_", "=5F")}`, `${pre}${near.slice(0, 75 - pre.length)}=\n${near.slice(75 - pre.length)}`]) {
      expect(scan(text), text).toEqual([]);
    }
  });
});

describe("code point escapes \\u{…}, \\U, Python's \\N{…} (try16 F2, F19)", () => {
  const codePoint = (s: string) => [...s].map((c) => `\\u{${c.charCodeAt(0).toString(16)}}`).join("");
  const eightDigits = (s: string) => [...s].map((c) => `\\U${c.charCodeAt(0).toString(16).toUpperCase().padStart(8, "0")}`).join("");
  const unicodeName = (c: string): string =>
    /[0-9]/.test(c)
      ? `DIGIT ${["ZERO", "ONE", "TWO", "THREE", "FOUR", "FIVE", "SIX", "SEVEN", "EIGHT", "NINE"][Number(c)]}`
      : /[A-Z]/.test(c)
        ? `LATIN CAPITAL LETTER ${c}`
        : /[a-z]/.test(c)
          ? `LATIN SMALL LETTER ${c.toUpperCase()}`
          : { _: "LOW LINE", "-": "HYPHEN-MINUS", ".": "FULL STOP", "/": "SOLIDUS", ":": "COLON", "+": "PLUS SIGN", "=": "EQUALS SIGN" }[c]!;
  const named = (s: string) => [...s].map((c) => `\\N{${unicodeName(c)}}`).join("");

  it("finds a token with an escaped character, or every character escaped, at the escape's word on its line and column", () => {
    for (const [enc, encoding] of [
      [TOKEN.replace("_", "\\u{5f}"), "code-point-escape"], // ECMAScript 2015, Rust, Swift
      [TOKEN.replace("_", "\\u{5F}"), "code-point-escape"],
      [TOKEN.replace("_", "\\u{00005f}"), "code-point-escape"], // six hex digits, the most there are
      [codePoint(TOKEN), "code-point-escape"],
      [TOKEN.replace("_", "\\U0000005F"), "code-point-escape"], // Python, C
      [eightDigits(TOKEN), "code-point-escape"],
      [TOKEN.replace("_", "\\N{LOW LINE}"), "named-escape"], // Python
      [TOKEN.replace("_", "\\N{low line}"), "named-escape"], // any case, as Python reads it
      [named(TOKEN), "named-escape"],
      [TOKEN.replace("_", "\\N{LOW LINE}").replace(TOKEN[5]!, "\\u{" + TOKEN.charCodeAt(5).toString(16) + "}"), "code-point-escape+named-escape"],
    ] as const) {
      const text = `fn main() {\n    let token = "${enc}";\n}\n`;
      const f = scan(text);
      expect(found(text), enc).toEqual([["github-pat", encoding, enc]]);
      expect(f[0]).toMatchObject({ line: 2, column: 18, fingerprint: plain.fingerprint, preview: "ghp_****" });
      expect(redact(text)).toBe(`fn main() {\n    let token = "[REDACTED:github-pat]";\n}\n`);
    }
  });

  it("finds every token character named as Python names it (digits, letters, - . / : + =) and other rules' tokens", () => {
    expect(scan(named("0123456789-./:+=AZaz")).length).toBe(0);
    const npm = fakeNpmToken(4);
    for (const token of [npm, TOKEN]) {
      const text = `token = "${named(token.slice(0, 4))}${token.slice(4)}"`;
      expect(scan(text).map((f) => [f.ruleId, f.fingerprint]), token.slice(0, 4)).toEqual([[scan(token)[0]!.ruleId, scan(token)[0]!.fingerprint]]);
    }
    const punctuation = "_-./:+=";
    expect([...punctuation].map((c) => String.raw`x\N{${unicodeName(c)}}y`).map((w) => decodedRuns(w, decodeBudgetFor(100)).joined())).toEqual([...punctuation].map((c) => `x${c}y`));
  });

  it("finds them escaped once more: JSON of Python source (depth 2), base64 of a Rust string", () => {
    const json = `{"code": "token = '${TOKEN.replace("_", "\\\\N{LOW LINE}")}'"}`;
    expect(scan(json).map((f) => [f.ruleId, f.encoding, f.fingerprint])).toEqual([["github-pat", "json-unicode/named-escape", plain.fingerprint]]);
    const rust = `let t = "${TOKEN.replace("_", "\\u{5f}")}";\n`;
    expect(scan(`src: ${b64(rust)}`).map((f) => [f.ruleId, f.encoding, f.fingerprint])).toEqual([["github-pat", "base64/code-point-escape", plain.fingerprint]]);
  });

  it("does not find a near-miss token escaped these ways, nor a token behind a malformed escape", () => {
    const near = breakChecksum(TOKEN);
    for (const e of ["\\u{5f}", "\\U0000005F", "\\N{LOW LINE}"]) expect(scan(`"${near.replace("_", e)}"`), e).toEqual([]);
    for (const e of [
      "\\u{}", // no digit
      "\\u{5f", // no closing brace
      "\\u{000005f}", // seven digits
      "\\u{5_f}",
      "\\U0000005", // seven digits
      "\\U0000005G",
      "\\N{LOWLINE}", // not a name
      "\\N{LOW LINE", // no closing brace
      "\\N{}",
      "\\N{LOW_LINE}",
      "\\n{LOW LINE}", // only N names
    ]) {
      expect(scan(`"${TOKEN.replace("_", e)}"`), e).toEqual([]);
    }
  });

  it("leaves escapes of text without a credential alone, and starts no run at escapes of characters a token cannot hold", () => {
    const text = String.raw`print("snake\N{LOW LINE}case \u{1F600} \N{EM DASH} \U0001F600 caf\u{e9} \N{SPACE} \u{110000} \u{d800} \U00110000")`;
    expect(scan(text)).toEqual([]);
    expect(decodedRuns(String.raw`a\u{20}b c\N{SPACE}d e\U00000020f \u{1F600} \N{EM DASH} \u{d800}_ \U0011005F`, decodeBudgetFor(100)).count).toBe(0);
  });
});

describe("base64 of UTF-16LE text (PowerShell -EncodedCommand; try16 F19)", () => {
  const utf16 = (s: string, encoding: "base64" | "base64url" = "base64") => Buffer.from(s, "utf16le").toString(encoding);
  /** Offset in the base64 of the group holding UTF-16 code unit `k`'s first byte. */
  const groupOf = (k: number) => Math.floor((2 * k) / 3) * 4;

  it("finds the token in a PowerShell -EncodedCommand, at the base64 groups of its bytes, with its rule and fingerprint", () => {
    for (const lead of ["", "$env:GH_TOKEN = '", "gh auth login --with-token <<< ", "# café — "]) {
      const script = `${lead}${TOKEN}'; gh repo list`;
      const encoded = utf16(script);
      const text = `Run this:\npowershell.exe -NoProfile -EncodedCommand ${encoded}\n`;
      const [f, ...rest] = scan(text);
      expect(rest, lead).toEqual([]);
      const at = text.indexOf(encoded);
      expect(f, lead).toMatchObject({ ruleId: "github-pat", encoding: "base64-utf16le", line: 2, fingerprint: plain.fingerprint, preview: "ghp_****" });
      expect(f!.column, lead).toBe(at - text.indexOf("\n") + groupOf(lead.length));
      // The span is the token's groups: its bytes, read as UTF-16LE from the token's first byte, hold it.
      const bytes = Buffer.from(text.slice(f!.offset, f!.endOffset), "base64");
      expect(bytes.subarray((2 * lead.length) % 3).toString("utf16le").startsWith(TOKEN), lead).toBe(true);
      expect(f!.endOffset! - at, lead).toBe(Math.ceil((2 * (lead.length + TOKEN.length)) / 3) * 4);
      expect(redact(text)).not.toContain(encoded.slice(groupOf(lead.length), groupOf(lead.length) + 8));
    }
  });

  it("finds it with a byte order mark, in base64url, wrapped at 76 columns (InsertLineBreaks), with CRLF line ends", () => {
    const script = `$t = '${TOKEN}'`;
    const wrapped = utf16(script).match(/.{1,76}/g)!;
    expect(wrapped.length).toBeGreaterThan(1);
    for (const [text, encoding] of [
      [`-e ${utf16(`\ufeff${script}`)}`, "base64-utf16le"],
      [`-e ${utf16(`${script} ?>?>`, "base64url")}`, "base64url-utf16le"],
      [`$b64 = @"\n${wrapped.join("\n")}\n"@\n`, "base64-utf16le"],
      [`Run:\r\npowershell -e ${utf16(script)}\r\n`, "base64-utf16le"],
    ] as const) {
      expect(scan(text).map((f) => [f.ruleId, f.encoding, f.fingerprint]), text).toEqual([["github-pat", encoding, plain.fingerprint]]);
    }
  });

  it("finds every rule's positive examples as base64 of UTF-16LE text", () => {
    const missed: string[] = [];
    for (const rule of RULES) {
      rule.examples().positive.forEach((example, k) => {
        if (!scan(`-e ${utf16(` ${example}\n`)}`).some((f) => f.ruleId === rule.id && f.encoding === "base64-utf16le")) missed.push(`${rule.id}[${k}]`);
      });
    }
    expect(missed).toEqual([]);
  });

  it("reports nothing for UTF-16LE base64 of text without a credential, of a near-miss or glued token, or of binary", () => {
    const near = breakChecksum(TOKEN);
    expect(scan(near)).toEqual([]);
    for (const script of [
      "Get-ChildItem -Recurse | Where-Object { $_.Length -gt 1MB } | Remove-Item",
      `$t = '${near}'`,
      `$t = '${TOKEN}x'`, // a word glued after it: no token (before it, a checksum rule's token is one)
      `$t = '${TOKEN.slice(0, 30)}'`, // cut short
      `abc\u0001${TOKEN}`, // a control character: not text
    ]) {
      expect(scan(`powershell -e ${utf16(script)}`), script).toEqual([]);
    }
    // UTF-16LE's head but then a lone surrogate: not text, not decoded.
    const lone = Buffer.concat([Buffer.from("abc", "utf16le"), Buffer.from([0x00, 0xd8]), Buffer.from(` ${TOKEN}`, "utf16le")]).toString("base64");
    expect(scan(`-e ${lone}`)).toEqual([]);
  });
});

describe("base64 of UTF-16BE text (Java's getBytes(UTF_16), iconv -t UTF-16BE; issue 10)", () => {
  /** `s` as UTF-16BE bytes (with a byte order mark FE FF when `bom`), then base64. */
  const utf16be = (s: string, bom: boolean, encoding: "base64" | "base64url" = "base64") =>
    Buffer.concat([Buffer.from(bom ? [0xfe, 0xff] : []), Buffer.from(s, "utf16le").swap16()]).toString(encoding);

  it("finds the token with and without a byte order mark (/v8A…), at the base64 groups of its bytes, with its rule and fingerprint", () => {
    for (const bom of [true, false]) {
      for (const lead of ["", "token=", "export GH_TOKEN=", "# café — "]) {
        const encoded = utf16be(`${lead}${TOKEN}\n`, bom);
        if (bom) expect(encoded.startsWith("/v8A")).toBe(true);
        const text = `config:\n  blob: ${encoded}\n`;
        const [f, ...rest] = scan(text);
        expect(rest, lead).toEqual([]);
        expect(f, lead).toMatchObject({ ruleId: "github-pat", encoding: "base64-utf16be", line: 2, fingerprint: plain.fingerprint, preview: "ghp_****" });
        // The span is the 4-character groups holding the token's bytes.
        const at = text.indexOf(encoded);
        const first = (bom ? 2 : 0) + 2 * lead.length;
        expect(f!.offset! - at, lead).toBe(Math.floor(first / 3) * 4);
        const bytes = Buffer.from(text.slice(f!.offset, f!.endOffset), "base64");
        const own = bytes.subarray(first % 3);
        expect(Buffer.from(own.subarray(0, own.length & ~1)).swap16().toString("utf16le").startsWith(TOKEN), lead).toBe(true);
        expect(redact(text)).not.toContain(encoded.slice(f!.offset! - at, f!.offset! - at + 8));
      }
    }
  });

  it("finds it in base64url and wrapped at 76 columns", () => {
    const script = `$t = '${TOKEN}'`;
    const wrapped = utf16be(script, true).match(/.{1,76}/g)!;
    expect(wrapped.length).toBeGreaterThan(1);
    for (const [text, encoding] of [
      [`v=${utf16be(`${script} ?>?>`, false, "base64url")}`, "base64url-utf16be"],
      [`blob: |\n  ${wrapped.join("\n  ")}\n`, "base64-utf16be"],
    ] as const) {
      expect(scan(text).map((f) => [f.ruleId, f.encoding, f.fingerprint]), text).toEqual([["github-pat", encoding, plain.fingerprint]]);
    }
  });

  it("finds every rule's positive examples as base64 of UTF-16BE text, with and without a byte order mark", () => {
    const missed: string[] = [];
    for (const rule of RULES) {
      rule.examples().positive.forEach((example, k) => {
        for (const bom of [true, false]) {
          if (!scan(`-e ${utf16be(` ${example}\n`, bom)}`).some((f) => f.ruleId === rule.id && f.encoding === "base64-utf16be")) missed.push(`${rule.id}[${k}]${bom ? " bom" : ""}`);
        }
      });
    }
    expect(missed).toEqual([]);
  });

  it("reports nothing for UTF-16BE base64 of text without a credential, of a near-miss or glued token, or of binary", () => {
    const near = breakChecksum(TOKEN);
    for (const script of ["Get-ChildItem -Recurse | Remove-Item", `$t = '${near}'`, `$t = '${TOKEN}x'`, `$t = '${TOKEN.slice(0, 30)}'`, `abc\u0001${TOKEN}`]) {
      for (const bom of [true, false]) expect(scan(`v: ${utf16be(script, bom)}`), script).toEqual([]);
    }
    // UTF-16BE's head but then a lone surrogate: not text, not decoded.
    const lone = Buffer.concat([Buffer.from("abc", "utf16le").swap16(), Buffer.from([0xd8, 0x00]), Buffer.from(` ${TOKEN}`, "utf16le").swap16()]).toString("base64");
    expect(scan(`v: ${lone}`)).toEqual([]);
  });
});

describe("escapes escaped twice (an escape of %, & or \\ that makes an escape of a token character)", () => {
  it("finds percent-encoded percent, &amp;#95;, JSON inside JSON and %5Cu005f at depth 2, at the encoded text", () => {
    for (const [enc, encoding] of [
      [TOKEN.replace("_", "%255F"), "percent/percent"],
      [TOKEN.replace("_", "&amp;#95;"), "html-entity/html-entity"],
      [TOKEN.replace("_", "&amp;lowbar;"), "html-entity/html-entity"],
      [TOKEN.replace("_", "\\\\u005f"), "json-unicode/json-unicode"],
      [TOKEN.replace("_", "%5Cu005f"), "percent/json-unicode"],
      [TOKEN.replace("_", "&#37;5F"), "html-entity/percent"],
    ] as const) {
      const text = `open https://ci.example.com/hook?t=${enc} now`;
      const f = scan(text);
      expect(found(text), enc).toEqual([["github-pat", encoding, `t=${enc}`.slice(2)]]);
      expect(f[0]!.fingerprint).toBe(plain.fingerprint);
    }
  });

  it("maps a token far into a long escaped word back to its escaped characters (surrogate pairs, one-byte and two-byte decoded text)", () => {
    // Offsets are mapped back by decoding again from a checkpoint every 256 decoded code units.
    const enc = TOKEN.replace("_", "%5F");
    for (const filler of ["a%2F", "&#x1F600;", "&#233;", "\\u2014"]) {
      for (const count of [1, 100, 700]) {
        const text = `see ${filler.repeat(count)}${enc}&#x1F600;tail here`;
        expect(found(text).map(([rule, , span]) => [rule, span]), `${filler} x${count}`).toEqual([["github-pat", enc]]);
      }
    }
  });

  it("does not find a token escaped three times (depth 3), nor decode escaped introducers followed by anything else", () => {
    for (const enc of [TOKEN.replace("_", "%25255F"), TOKEN.replace("_", "&amp;amp;#95;"), TOKEN.replace("_", "%255Cu005f")]) {
      expect(scan(`?t=${enc} `), enc).toEqual([]);
    }
    const budget = decodeBudgetFor(100);
    expect(decodedRuns("100%25 R&amp;D %25%25%25 &amp;amp;amp; C:\\\\Users\\\\me %5C%5C", budget).count).toBe(0);
  });
});

describe("line-wrapped base64", () => {
  const FINE = `github_pat_${randomChars(22, 5)}_${randomChars(59, 6)}`;
  const fine = scan(FINE)[0]!;
  const wrap = (s: string, width: number) => s.match(new RegExp(`.{1,${width}}`, "g"))!.join("\n");

  it("joins lines of 76 (coreutils base64), 64 (PEM, openssl), 60, 48 and 40 characters, LF or CRLF, reported where the token's groups start", () => {
    const encoded = b64(`me:${FINE}`);
    for (const width of [76, 64, 60, 48, 40]) {
      for (const eol of ["\n", "\r\n"]) {
        const text = `$ printf 'me:…' | base64${eol}${wrap(encoded, width).replace(/\n/g, eol)}${eol}$ ls${eol}`;
        const [f, ...rest] = scan(text);
        expect(rest).toEqual([]);
        expect(f, `${width} ${JSON.stringify(eol)}`).toMatchObject({ ruleId: "github-fine-grained-pat", encoding: "base64", line: 2, column: 5, fingerprint: fine.fingerprint });
        // The span covers the token's groups across the line break; redacting it leaves no bit of it.
        const covered = text.slice(f!.offset, f!.endOffset);
        expect(covered).toContain(eol);
        expect(Buffer.from(covered.replace(/\s/g, ""), "base64").toString()).toContain(FINE);
        expect(redact(text)).not.toContain(encoded.slice(8, 16));
      }
    }
  });

  it("finds base64 of user:<token> wrapped at 40 columns, indented or not, whatever cuts the token (try14 F8)", () => {
    for (const lead of ["", "u:", "usr:", "deploy:", "user:", "ci-user:"]) {
      const lines = wrap(b64(`${lead}${TOKEN}`), 40).split("\n");
      expect(lines.length, lead).toBeGreaterThan(1);
      for (const indent of ["", "    "]) {
        const text = `data:\n${lines.map((l) => indent + l).join("\n")}\n`;
        expect(scan(text).map((f) => [f.ruleId, f.encoding, f.fingerprint]), `${JSON.stringify(lead)} ${JSON.stringify(indent)}`).toEqual([["github-pat", "base64", plain.fingerprint]]);
      }
    }
  });

  it("finds a token deep in a long wrapped block, on the line its groups start", () => {
    // Short ASCII blocks are decoded into the pool, longer or UTF-8 ones as one string (decode.ts, readBlock).
    for (const preamble of [
      "some notes about the deploy, nothing secret here. ".repeat(12),
      "some notes about the deploy, nothing secret here. ".repeat(40),
      "quelques notes sur le déploiement, rien de secret. ".repeat(12),
    ]) {
      const encoded = b64(`${preamble}me:${FINE} and more text`);
      const text = `blob:\n${wrap(encoded, 76)}\n`;
      const [f, ...rest] = scan(text);
      const byteOffset = Buffer.byteLength(`${preamble}me:`);
      const group = Math.floor(byteOffset / 3) * 4;
      expect(rest).toEqual([]);
      expect(f).toMatchObject({ ruleId: "github-fine-grained-pat", line: 2 + Math.floor(group / 76), column: 1 + (group % 76) });
      // The span ends where the token's last group does (redacting it removes every bit of the token).
      const covered = text.slice(f!.offset, f!.endOffset).replace(/\s/g, "");
      const lastGroupEnd = Math.ceil(Buffer.byteLength(`${preamble}me:${FINE}`) / 3) * 4;
      expect(covered).toBe(encoded.slice(group, lastGroupEnd));
    }
  });

  it("finds every rule's positive examples wrapped at 64 and 76 columns at every offset, where a line break cuts its gate too (issue 10)", () => {
    // A block per start offset 0..3W/4 − 1 (every column at every offset in a 3-byte group); a
    // block whose only gate is cut by a line break was missed before (5 % of offsets for ghp_
    // tokens). The blocks of one example and width are scanned as one text, apart by a line of
    // prose, except a pair rule's: the decoded blocks are scanned joined, where one block's key ID
    // would pair with the next block's secret (a match across two runs, dropped).
    const missed: string[] = [];
    let blocks = 0;
    for (const rule of RULES) {
      rule.examples().positive.forEach((example, k) => {
        for (const width of [64, 76]) {
          const texts: { text: string; spans: [number, number, number][] }[] = [];
          for (let offset = 0; offset < (3 * width) / 4; offset++) {
            if (texts.length === 0 || rule.pair !== undefined) texts.push({ text: "", spans: [] });
            const batch = texts[texts.length - 1]!;
            batch.text += `value ${offset}:\n`;
            const block = wrap(b64(`${" ".repeat(offset)}${example}\n`), width);
            batch.spans.push([batch.text.length, batch.text.length + block.length, offset]);
            batch.text += `${block}\n`;
          }
          for (const { text, spans } of texts) {
            const found = scan(text).filter((f) => f.ruleId === rule.id);
            for (const [start, end, offset] of spans) {
              blocks++;
              if (!found.some((f) => f.offset! >= start && f.endOffset! <= end)) missed.push(`${rule.id}[${k}] ${width} @${offset}`);
            }
          }
        }
      });
    }
    expect(blocks).toBeGreaterThan(RULES.length * 2 * 48);
    expect(missed).toEqual([]);
  });

  it("joins a YAML block scalar's indented lines", () => {
    const lines = wrap(b64(`me:${FINE}`), 64).split("\n").map((l) => `    ${l}`);
    const text = `apiVersion: v1\nkind: Secret\ndata:\n  token: |\n${lines.join("\n")}\n  other: eA==\n`;
    expect(scan(text).map((f) => [f.ruleId, f.line, f.column, f.encoding])).toEqual([["github-fine-grained-pat", 5, 9, "base64"]]);
  });

  it("joins lines that each carry the same lead or tail: block quote, comment, JSON array of lines, table rows (try16 F1)", () => {
    const encoded = b64(`notes for the deploy step follow here:\nme:${FINE}\nand more text after it`);
    const shapes: Record<string, (l: string) => string> = {
      "block quote": (l) => `> ${l}`,
      "nested block quote": (l) => `> > ${l}`,
      "comment #": (l) => `# ${l}`,
      "comment //": (l) => `// ${l}`,
      "comment ;": (l) => `; ${l}`,
      "list item": (l) => `- ${l}`,
      "JSON array of lines": (l) => `  "${l}",`,
      "table rows": (l) => `| ${l} |`,
      "Markdown hard breaks (two blanks)": (l) => `${l}  `,
      "Markdown hard breaks (backslash)": (l) => `${l}\\`,
    };
    for (const [shape, lineOf] of Object.entries(shapes)) {
      for (const width of [40, 64, 76]) {
        for (const eol of ["\n", "\r\n"]) {
          const lines = wrap(encoded, width).split("\n");
          const text = `A pasted secret:${eol}${lines.map(lineOf).join(eol)}${eol}end${eol}`;
          const found = scan(text);
          expect(found.map((f) => [f.ruleId, f.encoding, f.fingerprint]), `${shape} ${width} ${JSON.stringify(eol)}`).toEqual([["github-fine-grained-pat", "base64", fine.fingerprint]]);
          // The finding starts on the line where the token's first group is written, after that line's lead.
          const group = Math.floor(Buffer.byteLength("notes for the deploy step follow here:\nme:") / 3) * 4;
          expect(found[0]!.line, shape).toBe(2 + Math.floor(group / width));
          expect(found[0]!.column, shape).toBe(1 + lineOf("x").indexOf("x") + (group % width));
        }
      }
    }
  });

  it("does not join lines whose leads differ", () => {
    const lines = wrap(b64(`me:${FINE} and some more text so that it takes lines`), 64).split("\n");
    expect(lines.length).toBeGreaterThan(2);
    const text = lines.map((l, i) => (i % 2 === 0 ? `> ${l}` : `# ${l}`)).join("\n");
    expect(scan(`${text}\n`)).toEqual([]);
  });

  it("does not join lines of different widths or indentation, and still decodes each line alone", () => {
    const encoded = b64(`me:${FINE}`);
    const [a, b] = [encoded.slice(0, 76), encoded.slice(76)];
    expect(scan(`${a}\n  ${b}\n`)).toEqual([]);
    expect(scan(`${encoded.slice(0, 60)}\n${encoded.slice(60)}\n`)).toEqual([]); // the second line is longer
    expect(scan(`${encoded.slice(0, 64)}\n${encoded.slice(64)}\n`)).toHaveLength(1);
    // Two full-width lines that are separate values: joined they decode to both, each line's token found.
    const one = b64(`${TOKEN}\n`.padEnd(57, " "));
    expect(one).toHaveLength(76);
    expect(scan(`${one}\n${one}\n`).map((f) => [f.ruleId, f.line])).toEqual([
      ["github-pat", 1],
      ["github-pat", 2],
    ]);
    // A first line of binary makes the block not decode: the token's line is still decoded alone.
    const binary = Buffer.from(Array.from({ length: 57 }, (_, i) => (i * 37 + 1) & 0xff)).toString("base64");
    expect(scan(`${binary}\n${one}\n${binary}\n`).map((f) => [f.ruleId, f.line])).toEqual([["github-pat", 2]]);
  });

  describe("a block whose first line follows other text on its line (`key: ` + block, `powershell -EncodedCommand ` + block; try18 F1)", () => {
    // The leads of the UTF-8 sweep above (user:<token> at 40 columns), and the try-out's: each puts
    // the example's first byte at another offset, so the line break cuts it (or its gate) elsewhere.
    const leads = ["", "u:", "usr:", "deploy:", "user:", "ci-user:", "token=", '$env:T="'];
    const heads = ["key: ", "powershell -EncodedCommand ", "$b64 = '"];
    const encodings = { "base64-utf16le": "utf16le", base64: "utf8" } as const;
    /**
     * The texts of one example: every lead (whose plain text gives the rule: `u:` glued before a URL
     * scheme does not), head, indentation, width; `wholeLine`: the first line wrapped with its head
     * (`-e QQBC…` at W columns in all). Not a block when every line has fewer than 40 base64
     * characters (decode.ts, MIN_WRAP_WIDTH; README "Encoded credentials").
     */
    const layouts = (example: string, encoding: "utf8" | "utf16le", ruleId: string) => {
      const out: { text: string; what: string }[] = [];
      for (const lead of leads) {
        if (!scan(`${lead}${example}\n`).some((f) => f.ruleId === ruleId)) continue;
        const encoded = Buffer.from(`${lead}${example}\n`, encoding).toString("base64");
        for (const width of [64, 76]) {
          for (const head of heads) {
            for (const indent of ["", "    "]) {
              for (const wholeLine of [false, true]) {
                const firstWidth = wholeLine ? width - head.length : width;
                const lines = [encoded.slice(0, firstWidth), ...(encoded.slice(firstWidth).match(new RegExp(`.{1,${width}}`, "g")) ?? [])];
                if (lines.length < 2 || lines.every((l) => l.replace(/=+$/, "").length < 40)) continue;
                const text = `notes:\n${head}${lines[0]}\n${lines.slice(1).map((l) => indent + l).join("\n")}\nafter: done\n`;
                out.push({ text, what: `${JSON.stringify(lead)} ${width} ${JSON.stringify(head)} indent ${indent.length}${wholeLine ? " whole line" : ""}` });
              }
            }
          }
        }
      }
      return out;
    };

    for (const [name, encoding] of Object.entries(encodings)) {
      it(`finds every rule's positive examples as ${name}, every lead, 64 and 76 columns, indented or not`, () => {
        const missed: string[] = [];
        let tries = 0;
        for (const rule of RULES) {
          rule.examples().positive.forEach((example, k) => {
            for (const { text, what } of layouts(example, encoding, rule.id)) {
              tries++;
              const at = text.indexOf("\n") + 1;
              const hit = scan(text).some((f) => f.ruleId === rule.id && f.encoding === name && f.offset! >= at && f.endOffset! <= text.lastIndexOf("\nafter"));
              if (!hit) missed.push(`${rule.id}[${k}] ${what}`);
            }
          });
        }
        expect(tries).toBeGreaterThan(RULES.length * 100);
        expect(missed.slice(0, 20)).toEqual([]);
      });
    }

    it("reports the token where its groups start, across the break, with its fingerprint (the try-out's note)", () => {
      const script = `$env:GITHUB_TOKEN="${TOKEN}"; git push`;
      const encoded = Buffer.from(script, "utf16le").toString("base64");
      const text = `# deploy\nRun it with:\npowershell -EncodedCommand ${wrap(encoded, 76)}\n`;
      const [f, ...rest] = scan(text);
      expect(rest).toEqual([]);
      expect(f).toMatchObject({ ruleId: "github-pat", encoding: "base64-utf16le", line: 3, fingerprint: plain.fingerprint });
      // UTF-16 code unit 19 (the token's first) starts at byte 38: group 12, character 48 of the base64.
      expect(f!.column).toBe("powershell -EncodedCommand ".length + 1 + 48);
      const covered = text.slice(f!.offset, f!.endOffset);
      expect(covered).toContain("\n");
      const bytes = Buffer.from(covered.replace(/\s/g, ""), "base64");
      expect(bytes.toString("utf16le")).toContain(TOKEN);
      expect(redact(text)).not.toContain(encoded.slice(52, 60));
    });

    it("does not join a glued line that is not the block's start: the block is still decoded from its own first line", () => {
      const encoded = b64(`me:${FINE} and more text after it, so that it takes lines`);
      const lines = wrap(encoded, 64);
      // A word ending the line before (its letters are base64 characters) and a line longer than the block's width.
      for (const before of ["Here is the key", `x: ${"QUJD".repeat(17)}`]) {
        expect(scan(`${before}\n${lines}\n`).map((f) => [f.ruleId, f.line, f.column]), before).toEqual([["github-fine-grained-pat", 2, 5]]);
      }
      expect(scan(`Here is the key\n${lines}\n`.replace(/\n/g, "\r\n")).map((f) => [f.ruleId, f.line])).toEqual([["github-fine-grained-pat", 2]]);
    });

    it("reports nothing for a glued block of text without a credential, or of a near-miss token", () => {
      for (const script of [`$t = '${breakChecksum(TOKEN)}'; git push origin main --force-with-lease`, "Get-ChildItem -Recurse | Where-Object { $_.Length -gt 1MB } | Remove-Item -Force"]) {
        for (const encoding of ["utf8", "utf16le"] as const) {
          const text = `key: ${wrap(Buffer.from(script, encoding).toString("base64"), 76)}\n`;
          expect(scan(text), `${encoding} ${script}`).toEqual([]);
        }
      }
    });
  });
});

describe("hex (xxd -p, od, Python's .hex(), Go's hex.EncodeToString, Java's HexFormat)", () => {
  const hex = (s: string) => Buffer.from(s, "utf8").toString("hex");
  const HEX = (s: string) => hex(s).toUpperCase();
  /** `xxd -p`: 30 bytes (60 digits) a line. */
  const xxd = (s: string) => hex(s).match(/.{1,60}/g)!.join("\n");

  it("finds the hex of a token at its first digit, with its rule, fingerprint and preview, and redacts every digit", () => {
    const text = `# notes\nconfig:\n  token_hex: ${hex(`GITHUB_TOKEN=${TOKEN}`)}\n`;
    const [f, ...rest] = scan(text);
    expect(rest).toEqual([]);
    expect(f).toMatchObject({ ruleId: "github-pat", encoding: "hex", line: 3, fingerprint: plain.fingerprint, preview: "ghp_****" });
    // "GITHUB_TOKEN=" is 13 bytes: the token's digits start 26 digits into the run.
    expect(f!.column).toBe("  token_hex: ".length + 1 + 26);
    expect(text.slice(f!.offset, f!.endOffset)).toBe(hex(TOKEN));
    expect(redact(text)).toBe(`# notes\nconfig:\n  token_hex: ${hex("GITHUB_TOKEN=")}[REDACTED:github-pat]\n`);
  });

  it("finds lowercase, uppercase, 0x-prefixed, xxd -p wrapped at 60 and CRLF forms", () => {
    const line = (text: string) => scan(text).map((f) => [f.ruleId, f.encoding, f.line, f.column]);
    expect(line(`t=${hex(TOKEN)}`)).toEqual([["github-pat", "hex", 1, 3]]);
    expect(line(`t=${HEX(TOKEN)}`)).toEqual([["github-pat", "hex", 1, 3]]);
    expect(line(`const t = 0x${hex(TOKEN)};`)).toEqual([["github-pat", "hex", 1, 13]]);
    expect(line(`const t = 0X${HEX(TOKEN)};`)).toEqual([["github-pat", "hex", 1, 13]]);
    expect(line(`a\r\nt: ${hex(TOKEN)}\r\n`)).toEqual([["github-pat", "hex", 2, 4]]);
    // printf 'token: ghp_…' | xxd -p: the token's 80 digits start at digit 14 and cross the line break.
    const wrapped = `$ printf '%s' "$T" | xxd -p\n${xxd(`token: ${TOKEN}\n`)}\n`;
    expect(line(wrapped)).toEqual([["github-pat", "hex", 2, 15]]);
    expect(line(wrapped.replace(/\n/g, "\r\n"))).toEqual([["github-pat", "hex", 2, 15]]);
    const [f] = scan(wrapped);
    expect(wrapped.slice(f!.offset, f!.endOffset).replace(/\n/g, "")).toBe(hex(TOKEN));
  });

  it("finds every rule's positive examples hex-encoded, lowercase and uppercase, plain and wrapped by xxd -p", () => {
    const missed: string[] = [];
    let tries = 0;
    for (const rule of RULES) {
      rule.examples().positive.forEach((example, k) => {
        for (const [what, text] of [
          ["lower", `value: ${hex(example)}\n`],
          ["upper", `value: ${HEX(example)}\n`],
          ["xxd", `${xxd(`${example}\n`)}\n`],
        ] as const) {
          tries++;
          if (!scan(text).some((f) => f.ruleId === rule.id && f.encoding === "hex")) missed.push(`${rule.id}[${k}] ${what}`);
        }
      });
    }
    expect(tries).toBeGreaterThan(RULES.length * 3);
    expect(missed).toEqual([]);
  });

  it("reports nothing for random hex, SHA-1 and SHA-256 digests, UUIDs, colors, hex of text without a token, of a prefix alone or of a near miss", () => {
    const digest = (algorithm: string, s: string) => createHash(algorithm).update(s).digest("hex");
    const random = Buffer.from(Array.from(randomChars(200, 7), (c, i) => (c.charCodeAt(0) * 13 + i) & 0xff)).toString("hex");
    for (const text of [
      `random: ${random}`,
      `commit ${digest("sha1", TOKEN)}\nsha256: ${digest("sha256", TOKEN)}\nsha512: ${digest("sha512", TOKEN)}`,
      `id: 123e4567-e89b-12d3-a456-426614174000, color: #ff00aa`,
      `note: ${hex("just some notes about the deploy, nothing secret here")}`,
      `prefix: ${hex("ghp_ghp_ghp_ghp_ghp_ghp_ghp_ghp_")} ${hex("github_pat_ and ghp_ are prefixes")}`,
      `near: ${hex(breakChecksum(TOKEN))}`,
      `short: ${hex(TOKEN.slice(0, 30))}`,
      `glued: ${hex(`${TOKEN}x`)}`, // a word glued after it (before it, a checksum rule's token is one: boundaries.ts)
    ]) {
      expect(scan(text), text).toEqual([]);
    }
  });

  it("refuses mixed case, an odd digit count, hex glued to other letters and hex of binary", () => {
    const lower = hex(TOKEN);
    expect(scan(`t=${lower}`)).toHaveLength(1);
    expect(scan(`t=${lower.slice(0, 10).toUpperCase()}${lower.slice(10)}`)).toEqual([]); // 6768705F51…: no encoder writes it
    expect(scan(`t=${lower}0`)).toEqual([]);
    expect(scan(`t=key${lower}`)).toEqual([]);
    expect(scan(`t=${hex("\u0001\u0002")}${lower}`)).toEqual([]); // control characters: not text
    expect(scan(`t=${lower}`, { decode: false })).toEqual([]);
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
    // Padded and starting with a line end: no tail or head of it is decoded besides it (engine/realign.ts).
    const run = b64(`\n${"a".repeat(59_998)}`);
    expect(run).toMatch(/=$/);
    decodedRuns(`${run} ${run}`, budget);
    expect(budget.remaining).toBe(20 + 65_536 - 59_999); // the second run no longer fits
  });

  it("honours decode: false and teammem:allow on the encoded text's line", () => {
    const text = `auth: ${b64(`u:${TOKEN}`)}`;
    expect(scan(text, { decode: false })).toEqual([]);
    expect(scan(`${text} # teammem:allow`)).toEqual([]);
    expect(scan(text, { allowFingerprints: [plain.fingerprint] })).toEqual([]);
  });
});

// Every rule's positive examples with one place of their token rewritten (issue 10's escapes, shell continuations, soft hyphens).
const hexOf = (c: string) => c.charCodeAt(0).toString(16);
/** Each rule's positive examples with one character of its token (or a place in it) rewritten by `edit`, and the plain finding it came from. */
const edited = (edit: (text: string, at: number) => string, pick: (value: string) => number) => {
  const out: { rule: string; text: string }[] = [];
  for (const rule of RULES) {
    rule.examples().positive.forEach((example) => {
      const f = scan(example).find((x) => x.ruleId === rule.id);
      if (!f || /\s/.test(example.slice(f.offset, f.endOffset))) return; // key blocks: below
      // An escape is decoded in its word (and words near it): a rule that needs context outside
      // the token's word (a keyword before `=` with spaces, a key id on another line) is not
      // found from it alone, escaped or not (README, Encoded credentials).
      let a = f.offset!;
      let b = f.endOffset!;
      while (a > 0 && !/\s/.test(example[a - 1]!)) a--;
      while (b < example.length && !/\s/.test(example[b]!)) b++;
      if (!scan(example.slice(a, b)).some((x) => x.ruleId === rule.id)) return;
      const value = example.slice(f.offset, f.endOffset);
      // A token whose own form holds percent escapes (Twitter's `%2B`, `%3D`) is decoded with them: not that token any more.
      if (/%[0-9A-Fa-f]{2}/.test(value)) return;
      const at = pick(value);
      if (at >= 0) out.push({ rule: rule.id, text: edit(example, f.offset! + at) });
    });
  }
  return out;
};
/** A letter or digit of the value past its middle: inside the token whatever its prefix. */
const middle = (value: string) => {
  for (let i = value.length >> 1; i < value.length; i++) if (/[A-Za-z0-9]/.test(value[i]!)) return i;
  return -1;
};
// (A rule whose alphabet holds the escape's characters, such as a URL password's, finds the token as written: plain.)
const missedOf = (cases: { rule: string; text: string }[], encoding: RegExp) =>
  cases.filter(({ rule, text }) => !scan(text).some((f) => f.ruleId === rule && (f.encoding === undefined || encoding.test(f.encoding)))).map(({ rule, text }) => `${rule}: ${text}`);

describe("Perl/Ruby \\x{…}, CSS \\5f escapes, escaped ANSI colour codes, escaped key armor (issue 10)", () => {
  it("finds every rule's positive examples with a character escaped as \\x{…} (Perl, Ruby) or as CSS \\5f  (with and without its space)", () => {
    const perl = edited((t, at) => `${t.slice(0, at)}\\x{${hexOf(t[at]!)}}${t.slice(at + 1)}`, middle);
    const cssSpace = edited((t, at) => `${t.slice(0, at)}\\${hexOf(t[at]!)} ${t.slice(at + 1)}`, middle);
    const cssSix = edited((t, at) => `${t.slice(0, at)}\\${hexOf(t[at]!).padStart(6, "0")}${t.slice(at + 1)}`, middle);
    expect(perl.length).toBeGreaterThan(RULES.length);
    expect(missedOf(perl, /^hex-escape$/)).toEqual([]);
    expect(missedOf(cssSpace, /^css-escape$/)).toEqual([]);
    expect(missedOf(cssSix, /^css-escape$/)).toEqual([]);
    // Where and how the finding is reported.
    const text = `.token::after { content: "${TOKEN.replace("_", "\\5f ")}"; }\n`;
    expect(found(text)).toEqual([["github-pat", "css-escape", TOKEN.replace("_", "\\5f ")]]);
    expect(scan(text)[0]).toMatchObject({ fingerprint: plain.fingerprint, column: 27 });
    expect(found(`my $t = "${TOKEN.replace("_", "\\x{5F}")}";`)).toEqual([["github-pat", "hex-escape", TOKEN.replace("_", "\\x{5F}")]]);
  });

  it("finds every rule's positive examples split by, or glued after, an escaped ANSI colour code (\\e[1m, \\033[0m, \\x1b[31m, \\u001b[0m, ^[[0m)", () => {
    for (const [code, encoding] of [
      ["\\e[1m", /^ansi-escape$/],
      ["\\033[0m", /^octal-escape$/],
      ["\\x1b[31m", /^hex-escape$/],
      ["\\u001b[1;32m", /^json-unicode$/],
      ["^[[0m", /^ansi-escape$/],
    ] as const) {
      const split = edited((t, at) => `${t.slice(0, at)}${code}${t.slice(at)}`, middle);
      expect(split.length).toBeGreaterThan(RULES.length);
      expect(missedOf(split, encoding), code).toEqual([]);
      // Glued before the token: its final letter would glue to the token's start.
      const glued = edited((t, at) => `${t.slice(0, at)}${code}${t.slice(at)}`, () => 0);
      const missed = glued.filter(({ rule, text }) => !scan(text).some((f) => f.ruleId === rule)).map(({ rule, text }) => `${rule}: ${text}`);
      expect(missed, code).toEqual([]);
    }
    const gl = `glpat-${randomChars(20, 31)}`;
    const text = `echo -e "\\e[1m${gl}\\e[0m"\n`;
    expect(found(text)).toEqual([["gitlab-pat", "ansi-escape", gl]]);
  });

  it("finds every key block whose armor dashes are HTML references (&#45;), its body plain", () => {
    let blocks = 0;
    const missed: string[] = [];
    for (const rule of RULES) {
      rule.examples().positive.forEach((example, k) => {
        if (!/^-----BEGIN [A-Z0-9 ]+-----$/m.test(example)) return;
        blocks++;
        const text = example.replace(/^(.*)-----((?:BEGIN|END) [A-Z0-9 ]+)-----$/gm, (_, lead: string, words: string) => `${lead}${"&#45;".repeat(5)}${words}${"&#45;".repeat(5)}`);
        if (!scan(text).some((f) => f.ruleId === rule.id && f.encoding === "html-entity")) missed.push(`${rule.id}[${k}]`);
      });
    }
    expect(blocks).toBeGreaterThan(2);
    expect(missed).toEqual([]);
  });

  it("reports nothing for near-miss tokens escaped these ways, escaped colour codes in plain scripts, or an escaped armor without a key", () => {
    const near = breakChecksum(TOKEN);
    const gl = `glpat-${"x".repeat(20)}`; // placeholder
    for (const text of [
      near.replace("_", "\\x{5f}"),
      near.replace("_", "\\5f "),
      `echo -e "\\e[1m${near}\\e[0m"`,
      `${near.slice(0, 12)}^[[0m${near.slice(12)}`,
      `echo -e "\\e[1m${gl}\\e[0m"`,
      `printf '\\033[1;31merror:\\033[0m build failed\\n'; echo -e "\\x1b[32mok\\x1b[0m" ^[[2K`,
      `&#45;&#45;&#45;&#45;&#45;BEGIN PRIVATE KEY&#45;&#45;&#45;&#45;&#45;\nnot a key at all\n&#45;&#45;&#45;&#45;&#45;END PRIVATE KEY&#45;&#45;&#45;&#45;&#45;\n`,
      "a \\e b \\e1 ^[ x^y 2^[3] C:\\dev\\b5 \\d{4} \\x{} \\x{5f \\x{0000005f}",
    ]) {
      expect(scan(text), text).toEqual([]);
    }
    // Escapes of characters no token holds, and ESC without a colour code after it, start no run.
    expect(decodedRuns(String.raw`a\x{20}b \e1 ^[x \x1b \033x \20 a^[[`, decodeBudgetFor(100)).count).toBe(0);
  });
});

describe("shell line continuations and soft hyphens inside a token (issue 10)", () => {
  /** A place between two letters or digits past the value's middle. */
  const inside = (value: string) => {
    for (let i = Math.max(1, value.length >> 1); i < value.length; i++) if (/[A-Za-z0-9]/.test(value[i - 1]!) && /[A-Za-z0-9]/.test(value[i]!)) return i;
    return -1;
  };
  it("finds every rule's positive examples cut by \\ LF or \\ CR LF (bash), also in a Markdown code block", () => {
    for (const [cut, what] of [["\\\n", "LF"], ["\\\r\n", "CR LF"]] as const) {
      const cases = edited((t, at) => `${t.slice(0, at)}${cut}${t.slice(at)}`, inside);
      expect(cases.length).toBeGreaterThan(RULES.length);
      expect(missedOf(cases, /^line-continuation$/), what).toEqual([]);
      const fenced = cases.map(({ rule, text }) => ({ rule, text: `Deploy with:\n\n\`\`\`bash\n${text}\n\`\`\`\n` }));
      expect(missedOf(fenced, /^line-continuation$/), what).toEqual([]);
    }
    const text = `curl -H "Authorization: token ${TOKEN.slice(0, 20)}\\\n${TOKEN.slice(20)}" https://api.github.com/user\n`;
    expect(found(text)).toEqual([["github-pat", "line-continuation", `${TOKEN.slice(0, 20)}\\\n${TOKEN.slice(20)}`]]);
    expect(scan(text)[0]).toMatchObject({ line: 1, column: 31, endLine: 2, fingerprint: plain.fingerprint });
  });

  it("finds every rule's positive examples with a soft hyphen written as a character reference (&shy;, &#173;, &#xAD;)", () => {
    for (const shy of ["&shy;", "&#173;", "&#xAD;"]) {
      const cases = edited((t, at) => `${t.slice(0, at)}${shy}${t.slice(at)}`, inside);
      expect(missedOf(cases, /^html-entity$/), shy).toEqual([]);
    }
  });

  it("joins no line whose continuation is indented or follows a space, and reports no near miss cut these ways", () => {
    const near = breakChecksum(TOKEN);
    for (const text of [
      `${near.slice(0, 20)}\\\n${near.slice(20)}`,
      `${near.slice(0, 20)}&shy;${near.slice(20)}`,
      `${TOKEN.slice(0, 20)}\\\n  ${TOKEN.slice(20)}`, // bash reads the indented rest as a word of its own
      `export T=${TOKEN.slice(0, 20)} \\\n${TOKEN.slice(20)}`,
      "A hard line break\\\nin Markdown, a hy&shy;phen, co&#173;operate",
    ]) {
      expect(scan(text), text).toEqual([]);
    }
    expect(decodedRuns("make \\\n  all \\\n\tinstall x&shy; &shy;y a\\\n b", decodeBudgetFor(100)).count).toBe(0);
  });
});
