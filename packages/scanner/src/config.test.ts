import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig, parseConfig } from "./config.js";
import { scan } from "./scan.js";

describe("parseConfig", () => {
  it("accepts an empty object", () => {
    expect(parseConfig({})).toEqual({ allowFingerprints: [], customRules: [] });
  });
  it("builds sticky custom rules that scan", () => {
    const cfg = parseConfig({ customRules: [{ id: "acme-key", label: "ACME", prefixes: ["acme_"], pattern: "acme_[a-z]{8}", flags: "i" }] });
    expect(cfg.customRules[0]!.pattern.flags).toBe("iy");
    expect(scan("x acme_ABCDefgh", { rules: [], customRules: cfg.customRules }).map((f) => f.ruleId)).toEqual(["acme-key"]);
  });
  it.each([
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
