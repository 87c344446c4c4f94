/**
 * The decode layer's gates (engine/decode.ts, `base64Gates`) and the lazily built automaton that
 * holds them (engine/compile.ts, `gatedAutomaton`): a base64 run that can hide a prefix always holds
 * a gate, and a catalog finds encoded tokens whether or not its gates' automaton was built before.
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { fakeGithubPat, randomChars } from "../testing.js";
import { RULES } from "../rules/index.js";
import { scan } from "../scan.js";
import { compileRules } from "./compile.js";
import { base64Gates, canGate, decodeBudgetFor, decodedRuns, hasBase64Run, hexGates, MIN_BASE64_RUN } from "./decode.js";

const prefixes = [...new Set(RULES.flatMap((r) => r.prefixes))];

describe("base64Gates", () => {
  // The catalog's gates, as its scans use them (refined by what follows each short prefix).
  const catalog = compileRules(RULES);
  const gates = catalog.gatedAutomaton(true)!.prefixes.slice(catalog.gateFrom);
  const holdsGate = (encoded: string): boolean => gates.some((g) => encoded.includes(g));

  /** Every place a rule's match starts at one of its prefixes in its positive examples: [prefix, the example from there]. */
  const tokenHeads = (): [string, string][] => {
    const heads: [string, string][] = [];
    for (const rule of RULES) {
      const re = new RegExp((rule.pair?.id ?? rule.pattern).source, `${rule.pattern.flags.replace(/[gy]/g, "")}y`);
      for (const text of rule.examples().positive) {
        for (const p of rule.prefixes) {
          for (let at = text.indexOf(p); at !== -1; at = text.indexOf(p, at + 1)) {
            re.lastIndex = at;
            if (re.test(text)) heads.push([p, text.slice(at)]);
          }
        }
      }
    }
    return heads;
  };

  it("has a gate in the base64 (both alphabets) of every catalog prefix at every offset, encoded once and twice", () => {
    const heads = tokenHeads();
    expect(new Set(heads.map(([p]) => p))).toEqual(new Set(prefixes.filter((p) => heads.some(([q]) => q === p))));
    expect(heads.length).toBeGreaterThan(RULES.length);
    const missed: string[] = [];
    for (const [p, token] of heads) {
      for (let offset = 0; offset < 3; offset++) {
        // The prefix and the 6 characters after it: a refined gate (a prefix of 2 bytes) reads one.
        const once = Buffer.from("x".repeat(offset) + token.slice(0, p.length + 6), "utf8");
        for (const encoding of ["base64", "base64url"] as const) {
          const e1 = once.toString(encoding);
          if (!holdsGate(e1)) missed.push(`${p} @${offset} ${encoding}`);
          for (let offset2 = 0; offset2 < 3; offset2++) {
            const e2 = Buffer.from("y".repeat(offset2) + e1, "latin1").toString(encoding);
            if (!holdsGate(e2)) missed.push(`${p} @${offset}/${offset2} ${encoding} twice`);
          }
        }
      }
    }
    expect(missed).toEqual([]);
  });

  it("has a gate in the base64 of every escape of every token character, and its own base64 once more", () => {
    const missed: string[] = [];
    const tokenChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.+/=~";
    for (const ch of tokenChars) {
      const cp = ch.charCodeAt(0);
      const hex = cp.toString(16).padStart(2, "0");
      const escapes = [`%${hex}`, `%${hex.toUpperCase()}`, `\\u00${hex}`, `&#${cp};`, `&#x${hex};`, `&#X${hex.toUpperCase()};`, `&#0${cp};`];
      escapes.push(`\\u{${hex}}`, `\\U000000${hex.toUpperCase()}`, "\\N{LATIN SMALL LETTER A}", "\\N{low line}");
      for (const e of escapes) {
        for (let offset = 0; offset < 3; offset++) {
          for (const encoding of ["base64", "base64url"] as const) {
            const e1 = Buffer.from("x".repeat(offset) + e + "Zq", "utf8").toString(encoding);
            if (!holdsGate(e1)) missed.push(`${e} @${offset} ${encoding}`);
          }
        }
      }
    }
    expect(missed).toEqual([]);
  });

  it("has a gate in the base64 (both alphabets) of the UTF-16LE text of every catalog prefix at every offset (try16 F19)", () => {
    const missed: string[] = [];
    for (const [p, token] of tokenHeads()) {
      // UTF-16LE code units start at even byte offsets: 0, 2 and 4 are the three offsets in a 3-byte group.
      for (const units of [0, 1, 2]) {
        const bytes = Buffer.from("x".repeat(units) + token.slice(0, p.length + 6), "utf16le");
        for (const encoding of ["base64", "base64url"] as const) if (!holdsGate(bytes.toString(encoding))) missed.push(`${p} @${units} ${encoding}`);
      }
    }
    expect(missed).toEqual([]);
  });

  it("has a gate in the base64 (both alphabets) of the UTF-16BE text of every catalog prefix at every offset, with a byte order mark or not (issue 10)", () => {
    const missed: string[] = [];
    for (const [p, token] of tokenHeads()) {
      for (const units of [0, 1, 2]) {
        const bytes = Buffer.from("x".repeat(units) + token.slice(0, p.length + 6), "utf16le").swap16();
        for (const encoding of ["base64", "base64url"] as const) if (!holdsGate(bytes.toString(encoding))) missed.push(`${p} @${units} ${encoding}`);
      }
    }
    expect(missed).toEqual([]);
  });

  it("has a gate in the hex (lowercase and uppercase) of every catalog prefix, and the hex of ghp_'s first 3 characters in both cases", () => {
    const missed: string[] = [];
    for (const [p, token] of tokenHeads()) {
      const hex = Buffer.from(token.slice(0, p.length + 6), "utf8").toString("hex");
      if (!holdsGate(hex)) missed.push(`${p} lower`);
      if (!holdsGate(hex.toUpperCase())) missed.push(`${p} upper`);
    }
    expect(missed).toEqual([]);
    // Besides the DER key gates (try18 F2: the hex after a key's SEQUENCE header, all `0201…`).
    expect(hexGates(["ghp_", "sk-"]).filter((g) => !g.startsWith("0201"))).toEqual(["676870", "736b2d", "736B2D"]);
    expect(hexGates([]).every((g) => g.startsWith("0201"))).toBe(true);
    expect(gates).toEqual(expect.arrayContaining(["676870", "736b2d", "736B2D"]));
  });

  it("decodes no SHA-1, SHA-256 or SHA-512 digest, even with every run tried (no gate hits), and the hex of text", () => {
    const digests = Array.from({ length: 200 }, (_, i) => ["sha1", "sha256", "sha512"].map((a) => createHash(a).update(String(i)).digest("hex")).join(" ")).join("\n");
    const budget = decodeBudgetFor(digests.length);
    const before = budget.remaining;
    expect(decodedRuns(digests, budget).count).toBe(0);
    expect(budget.remaining).toBe(before);
    const text = Buffer.from("a note of 24 characters!").toString("hex");
    const runs = decodedRuns(`x ${text} y ${text.toUpperCase()}`, decodeBudgetFor(100));
    expect(runs.count).toBe(2);
    expect(runs.joined()).toBe("a note of 24 characters!\na note of 24 characters!");
    expect([runs.encoding(0), runs.toOriginal(0, 2, 6)]).toEqual(["hex", [2 + 4, 2 + 12]]);
  });

  it("refines the gates of a 2-byte prefix by the characters that follow it (no 2-character gate)", () => {
    expect(gates.filter((g) => g.length < 3)).toEqual([]);
    const alnum = new Uint8Array(256);
    for (const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") alnum[c.charCodeAt(0)] = 1;
    expect(base64Gates(["s."], [alnum])).toEqual(expect.arrayContaining(["cy4", "cy5", "HMu", "XMu", "nMu", "3Mu", "zLj", "zLn"]));
    expect(base64Gates(["s."])).toEqual(expect.arrayContaining(["cy", "Mu", "zL"]));
  });

  it("gives ghp_ its documented fragments and has none for a catalog with a one-byte prefix", () => {
    expect(base64Gates(["ghp_"])).toEqual(expect.arrayContaining(["Z2hwX", "docF", "naHBf"]));
    expect(canGate(["ghp_", "x"])).toBe(false);
    expect(base64Gates(["ghp_", "x"])).toBeUndefined();
  });
});

describe("hasBase64Run", () => {
  it("agrees with a regex search for a run of MIN_BASE64_RUN base64 characters", () => {
    const run = new RegExp(`[A-Za-z0-9+/_-]{${MIN_BASE64_RUN}}`);
    const samples = [
      "",
      "plain prose, short words.",
      "a".repeat(MIN_BASE64_RUN - 1),
      "a".repeat(MIN_BASE64_RUN),
      `x ${"b".repeat(MIN_BASE64_RUN - 1)} y ${"c".repeat(MIN_BASE64_RUN - 1)}.`,
      `see packages/scanner/src/engine for it`,
      `${"d".repeat(MIN_BASE64_RUN - 1)}=${"e".repeat(MIN_BASE64_RUN - 1)}`,
      `${"f".repeat(100)} end`,
      `start ${"g".repeat(MIN_BASE64_RUN)}`,
    ];
    for (const s of samples) expect([s, hasBase64Run(s)]).toEqual([s, run.test(s)]);
  });
});

describe("the gates' automaton, built on demand", () => {
  it("is not built by a text without a base64 run, and is built by the first that has one, which is then scanned whole", () => {
    const rules = RULES.map((rule) => ({ ...rule })); // a fresh catalog (compiled catalogs are memoised by array and by rule objects)
    const catalog = compileRules(rules);
    expect(scan("A short note: no credentials, no long runs.", { rules })).toEqual([]);
    expect(catalog.gatedAutomaton(false)).toBeUndefined();
    const token = fakeGithubPat(5);
    const text = `auth: ${Buffer.from(`deploy:${token}`).toString("base64")}\n`;
    expect(scan(text, { rules })).toMatchObject([{ ruleId: "github-pat", encoding: "base64" }]);
    expect(catalog.gatedAutomaton(false)?.stateCount).toBeGreaterThan(catalog.automaton.stateCount);
    // Same findings as the shared catalog (whose automaton a previous scan may have built).
    expect(scan(text, { rules })).toEqual(scan(text));
  });
});

describe("a decoded run of one repeated character (QUFB… decodes to AAA…)", () => {
  it("gives no finding alone, and the bearer token encoded after it is found", () => {
    const run = "QUFB".repeat(50_000);
    expect(scan(run)).toEqual([]);
    const token = `${"A".repeat(22)}${randomChars(90, 814)}`;
    const text = Buffer.from(`${"A".repeat(150_000)} ${token}\n`).toString("base64");
    expect(scan(text)).toMatchObject([{ ruleId: "twitter-bearer-token", encoding: "base64" }]);
    expect(scan(text)[0]!.fingerprint).toBe(scan(token)[0]!.fingerprint);
  });
});

