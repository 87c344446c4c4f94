import { describe, expect, it } from "vitest";
import { fieldName, findIllFormedString } from "../src/index.js";

describe("findIllFormedString", () => {
  it("finds a lone surrogate (high, low, at either end) in a value, an array item or a key, at any depth", () => {
    expect(findIllFormedString("\ud800")).toEqual([]);
    expect(findIllFormedString({ operations: [{ path: "ok" }, { path: "a\udc00" }] })).toEqual(["operations", 1, "path"]);
    expect(findIllFormedString({ a: { ["k\ud83d"]: 1 } })).toEqual(["a", "k\ufffd"]);
    expect(findIllFormedString(["x", ["y", "z\udbff"]])).toEqual([1, 1]);
    expect(fieldName(["body", "operations", 1, "path"])).toBe("body/operations/1/path");
  });

  it("accepts well-formed text (surrogate pairs included) and non-strings", () => {
    expect(findIllFormedString({ a: "😀 café", b: [1, true, null, { c: "\ud83d\ude00" }], d: undefined })).toBeNull();
    expect(findIllFormedString(null)).toBeNull();
    expect(findIllFormedString(42)).toBeNull();
  });

  it("walks a value nested 100,000 deep without overflowing the stack", () => {
    let deep: unknown = "\udfff";
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const at = findIllFormedString(deep)!;
    expect(at.length).toBe(100_000);
    expect(fieldName(["body", ...at])).toMatch(/^body\/0\/0\/.*\/…\/.*\/0\/0$/);
    expect(fieldName(["body", ...at]).length).toBeLessThanOrEqual(200);
  });
});
