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
