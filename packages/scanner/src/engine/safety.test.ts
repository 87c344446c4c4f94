import { describe, expect, it } from "vitest";
import { RULES } from "../rules/index.js";
import { checkPatternSafety } from "./safety.js";

const kinds = (re: RegExp | string) => {
  const r = checkPatternSafety(re);
  return [...r.problems, ...r.warnings].map((p) => p.kind);
};

describe("checkPatternSafety", () => {
  it("accepts bounded patterns and computes the longest and shortest match", () => {
    const r = checkPatternSafety(/(?<![A-Za-z0-9_])ghp_[A-Za-z0-9]{36}(?![A-Za-z0-9_])/y);
    expect(r).toEqual({ ok: true, problems: [], warnings: [], maxWidth: 40, minWidth: 40 });
    expect(checkPatternSafety(/-----BEGIN (?:RSA )?PRIVATE KEY-----[A-Za-z0-9+/=\s]{64,8000}?-----END/y)).toMatchObject({ ok: true, minWidth: 99 });
    expect(checkPatternSafety(/(?:hvs\.[A-Za-z0-9]{90,120}|s\.[A-Za-z0-9]{24})/y).minWidth).toBe(26);
    expect(checkPatternSafety(/(?<a>x{0,3})ab\k<a>/y).minWidth).toBe(2); // a backreference may be empty
    expect(checkPatternSafety(/(?:-[a-z0-9]{4}){3}/y).ok).toBe(true);
  });
  it("rejects unbounded quantifiers, also inside lookarounds", () => {
    expect(kinds(/ab_[a-z]+/y)).toEqual(["unbounded-quantifier"]);
    expect(kinds(/ab_.*x/)).toEqual(["unbounded-quantifier"]);
    expect(kinds(/ab_[a-z]{3,}/)).toEqual(["unbounded-quantifier"]);
    expect(kinds(/(?<=\w+)ab_/)).toEqual(["unbounded-quantifier"]);
  });
  it("warns about variable-width groups under a large quantifier", () => {
    expect(checkPatternSafety(/abc(?:a|ab){1,30}/).ok).toBe(true);
    expect(kinds(/abc(?:[a-z]{1,8}-?){1,20}/)).toContain("nested-quantifier");
    expect(kinds(/abc(?:a|ab){1,30}/)).toContain("nested-quantifier");
  });
  // try20 F7: chained quantified groups passed, and cost ~0.4 s at each prefix occurrence.
  it.each([
    "acme_(?:a{1,4}){1,4}(?:a{1,4}){1,4}(?:a{1,4}){1,4}b",
    "acme_(?:a{1,4}){1,4}(?:a{1,4}){1,4}b",
    "acme_(?:a{1,4}){1,4}(?:a{1,4}){1,4}(?:a{1,4}){1,4}(?:a{1,4}){1,4}(?:a{1,4}){1,4}b",
    "acme_[a-z]{1,30}[a-z]{1,30}[a-z]{1,30}[a-z]{1,30}!",
    "acme_(?:a?){1,4}(?:a?){1,4}(?:a?){1,4}(?:a?){1,4}b",
    "acme_(?:a{1,4}|b){1,4}(?:b|a{1,4}){1,4}(?:a{1,2}|a{3,4}){1,4}",
    "acme_(?:(?:a{1,3}){1,3}){1,3}(?:a{1,3}){1,3}",
    "acme_(?=x)(?:[a-z]{1,20}){1,3}[a-z0-9]{1,20}[a-z]{1,20}",
    "acme_(?<a>a{1,4}){1,4}(?<b>a{1,4}){1,4}(?:a{1,4}){1,4}b",
  ])("reports chained variable-width parts that multiply the ways to split a run: %s", (source) => {
    const r = checkPatternSafety(source);
    expect(r.warnings.map((w) => w.kind)).toContain("ambiguous-split");
    expect(r.warnings.find((w) => w.kind === "ambiguous-split")!.message).toMatch(/follows or repeats other variable-width parts: a match attempt may take .* steps .*\(limit 65536\)/);
  });
  it("names the part where the ways multiply past the limit, with the total", () => {
    expect(checkPatternSafety("acme_(?:a{1,4}){1,4}(?:b{1,4}){1,4}[c-e]{1,4}").warnings[0]!.message).toMatch(/^`\(\?:b\{1,4\}\)\{1,4\}` follows/);
    expect(checkPatternSafety("acme_(?:a{1,4}){1,4}(?:a{1,4}){1,4}(?:a{1,4}){1,4}b").warnings[0]!.message).toContain("~1.1e+8 steps");
  });
  it.each([
    "acme_[A-Za-z0-9]{32}",
    "acme_[A-Za-z0-9]{32,64}",
    "acme_[A-Za-z0-9]{8,16000}",
    "acme_[a-z]{0,16000}!",
    "acme_[a-z]{1,40}[0-9]{1,40}",
    "acme_(?:a{1,4}){1,4}",
    "acme_(?:-[a-z0-9]{4}){3}",
    "acme_[a-z]{8}(?:_[a-z]{4})?x?",
    "acme_(?:live|test)_[A-Za-z0-9]{24,99}",
  ])("accepts one variable-width run with fixed-width or small parts around it: %s", (source) => {
    expect(checkPatternSafety(source)).toMatchObject({ ok: true, warnings: [] });
  });
  it("rejects the g flag, very long matches and syntax errors", () => {
    expect(kinds(/abc/g)).toEqual(["global-flag"]);
    expect(kinds(/abc[a-z]{1,20000}/)).toEqual(["too-long"]);
    expect(kinds("abc(")).toEqual(["syntax"]);
  });
  it("accepts a literal { and escapes", () => {
    expect(checkPatternSafety(/a\{b\}\u0041\x41\p{L}{2}/u).ok).toBe(true);
  });
});

describe("rule catalog safety", () => {
  it.each(RULES.map((r) => [r.id, r] as const))("%s has a safe pattern", (_id, rule) => {
    expect(checkPatternSafety(rule.pattern).problems).toEqual([]);
  });
});
