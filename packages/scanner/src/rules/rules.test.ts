import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { scan } from "../scan.js";
import { RULES } from "./index.js";

describe("rule catalog", () => {
  it("has unique kebab-case ids", () => {
    const ids = RULES.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
  });
  it("index.ts lists every rule file (generated)", () => {
    const script = fileURLToPath(new URL("../../scripts/gen-rule-index.mjs", import.meta.url));
    expect(() => execFileSync(process.execPath, [script, "--check"])).not.toThrow();
  });
});

describe.each(RULES.map((r) => [r.id, r] as const))("%s", (_id, rule) => {
  const { positive, negative } = rule.examples();
  const found = (text: string) => scan(text, { rules: [rule] }).map((f) => f.ruleId);
  it("has at least two positive and two negative examples", () => {
    expect(positive.length).toBeGreaterThanOrEqual(2);
    expect(negative.length).toBeGreaterThanOrEqual(2);
  });
  it.each(positive.map((t) => [t]))("reports %s", (text) => expect(found(text)).toEqual([rule.id]));
  it.each(negative.map((t) => [t]))("ignores %s", (text) => expect(found(text)).toEqual([]));
});
