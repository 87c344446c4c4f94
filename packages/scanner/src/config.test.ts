import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig, parseConfig } from "./config.js";
import { scan } from "./scan.js";
import { caseVariants, MAX_CASE_VARIANTS } from "./case-variants.js";

describe("parseConfig", () => {
  it("accepts an empty object", () => {
    expect(parseConfig({})).toEqual({ allowFingerprints: [], customRules: [] });
  });
  it("builds sticky custom rules that scan", () => {
    const cfg = parseConfig({ customRules: [{ id: "acme-key", label: "ACME", prefixes: ["acme_"], pattern: "acme_[a-z]{8}", flags: "i" }] });
    expect(cfg.customRules[0]!.pattern.flags).toBe("iy");
    expect(scan("x acme_ABCDefgh", { rules: [], customRules: cfg.customRules }).map((f) => f.ruleId)).toEqual(["acme-key"]);
  });
  it("finds the prefixes of a rule with the flag i in any case, and keeps them case-sensitive without it (try21 F2)", () => {
    const rule = { id: "acme-key", label: "ACME", prefixes: ["acme_"], pattern: "acme_[a-z0-9]{8}" };
    const text = "a acme_ab12cd34\nb ACME_ab12cd34\nc AcMe_AB12CD34\n";
    const found = (flags?: string) =>
      scan(text, { rules: [], customRules: parseConfig({ customRules: [{ ...rule, flags }] }).customRules }).map((f) => `${f.line}:${f.preview}`);
    expect(found("i")).toEqual(["1:acme_****", "2:ACME_****", "3:AcMe_****"]);
    expect(found(undefined)).toEqual(["1:acme_****"]);
    expect(parseConfig({ customRules: [{ ...rule, flags: "i" }] }).customRules[0]!.prefixes).toHaveLength(16);
  });
  it("lists the case variants the regex's own i matching accepts: KELVIN SIGN joins k only with u", () => {
    expect(caseVariants("k-1", "i")).toEqual(["k-1", "K-1"]);
    expect(caseVariants("k-1", "iu")).toEqual(["k-1", "K-1", "\u212A-1"]);
    expect(caseVariants("k-1", "")).toEqual(["k-1"]);
    expect(caseVariants("abcdefghi", "i")).toBeUndefined(); // 512 > 256
  });
  it.each([
    [
      { customRules: [{ id: "a", label: "A", prefixes: ["abcdefgh", "xyz"], pattern: "(?:abcdefgh|xyz)[0-9]{8}", flags: "i" }] },
      `customRules[0].prefixes: with flag i the prefixes are found in any case and stand for 264 case variants, more than ${MAX_CASE_VARIANTS}: give shorter prefixes (the pattern still checks the rest of the token), or drop the flag i and list the cases that occur`,
    ],
    [
      { customRules: [{ id: "github-pat", label: "mine", prefixes: ["abc"], pattern: "abc[0-9]{8}" }] },
      'customRules[0].id: github-pat is the id of the catalog rule "GitHub personal access token (classic)": give the custom rule an id of its own',
    ],
    [
      { customRules: [{ id: "a-b", label: "A", prefixes: ["abc"], pattern: "abc[0-9]{8}" }, { id: "a-b", label: "B", prefixes: ["xyz"], pattern: "xyz[0-9]{8}" }] },
      "customRules[1].id: a-b is also the id of customRules[0]: give each custom rule an id of its own",
    ],
    [{ customRules: [{ id: "a", label: "A", prefixes: ["ab"], pattern: "ab[a-z]{3}" }] }, "customRules[0].prefixes[0]"],
    [{ customRules: [{ id: "a", label: "A", prefixes: [], pattern: "abc" }] }, "customRules[0].prefixes"],
    [{ customRules: [{ id: "a", label: "A", prefixes: ["abc"], pattern: "abc[a-z]+" }] }, "customRules[0].pattern: unsafe (unbounded-quantifier)"],
    [{ customRules: [{ id: "a", label: "A", prefixes: ["abc"], pattern: "abc(" }] }, "customRules[0].pattern: does not compile"],
    [
      { customRules: [{ id: "acme-key", label: "ACME", prefixes: ["acme_"], pattern: "acme_(?:a{1,4}){1,4}(?:a{1,4}){1,4}(?:a{1,4}){1,4}b" }] },
      "customRules[0].pattern: unsafe (ambiguous-split): `(?:a{1,4}){1,4}` follows or repeats other variable-width parts",
    ],
    [{ customRules: [{ id: "Bad_Id", label: "A", prefixes: ["abc"], pattern: "abc" }] }, "customRules[0].id"],
    [{ customRules: [{ id: "a", label: "A", prefixes: ["abc"], pattern: "abc", flags: "g" }] }, "customRules[0].flags"],
    [{ allowFingerprints: ["not hex"] }, "allowFingerprints[0]"],
    [{ unknown: 1 }, "(root)"],
  ])("refuses %j naming %s", (data, field) => {
    expect(() => parseConfig(data)).toThrow(ConfigError);
    expect(() => parseConfig(data)).toThrow(field);
  });
});

describe("loadConfig", () => {
  it("reads a JSON file and names the file in errors", () => {
    const dir = mkdtempSync(join(tmpdir(), "teammem-cfg-"));
    writeFileSync(join(dir, "ok.json"), JSON.stringify({ allowFingerprints: ["ABCDEF0123456789"] }));
    expect(loadConfig(join(dir, "ok.json")).allowFingerprints).toEqual(["abcdef0123456789"]);
    writeFileSync(join(dir, "bad.json"), "{nope");
    expect(() => loadConfig(join(dir, "bad.json"))).toThrow(/bad\.json: not valid JSON \(config_invalid\)/);
    expect(() => loadConfig(join(dir, "missing.json"))).toThrow(/missing\.json: cannot read config: no such file \(config_missing\)/);
  });
  it("gives each failure a stable code", () => {
    const dir = mkdtempSync(join(tmpdir(), "teammem-cfg-"));
    writeFileSync(join(dir, "bad.json"), JSON.stringify({ allowFingerprints: ["x"] }));
    const codeOf = (path: string) => {
      try {
        loadConfig(path);
      } catch (e) {
        return (e as ConfigError).code;
      }
      return "loaded";
    };
    expect([join(dir, "missing.json"), dir, join(dir, "bad.json")].map(codeOf)).toEqual(["config_missing", "config_not_a_file", "config_invalid"]);
  });
});
