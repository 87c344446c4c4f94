import { describe, expect, it } from "vitest";
import { lookbehindTable } from "./compile.js";

describe("lookbehindTable", () => {
  it("marks the ASCII characters a leading negative lookbehind excludes", () => {
    const t = lookbehindTable(/(?<![A-Za-z0-9_-])ghp_[A-Za-z0-9]{36}/y)!;
    for (const c of "aZ9_-") expect(t[c.charCodeAt(0)], c).toBe(1);
    for (const c of " =.:'\"\n") expect(t[c.charCodeAt(0)], c).toBe(0);
  });
  it("follows the pattern's flags", () => {
    expect(lookbehindTable(/(?<![a-z])abc/iy)![65]).toBe(1);
  });
  it("gives nothing without a leading lookbehind or with a top-level alternation", () => {
    expect(lookbehindTable(/ghp_[A-Za-z0-9]{36}/y)).toBeUndefined();
    expect(lookbehindTable(/(?<=[a-z])ghp_/y)).toBeUndefined();
    expect(lookbehindTable(/(?<![a-z])ghp_|xyz/y)).toBeUndefined();
    expect(lookbehindTable(/(?<![a-z])(?:ghp_|xyz)/y)).toBeDefined();
    expect(lookbehindTable(/(?<![a-z|])ghp_/y)).toBeDefined();
  });
});
