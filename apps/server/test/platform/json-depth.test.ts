/** try15 F9: the nesting check that runs before JSON.parse (http/json-depth.ts). */
import { describe, expect, it } from "vitest";
import { nestsDeeperThan } from "../../src/http/json-depth.js";

describe("nestsDeeperThan", () => {
  it.each([
    ["flat", '{"a": [1, 2], "b": {"c": 3}}', 2, false],
    ["one level too deep", '{"a": [[1]]}', 2, true],
    ["arrays closed before the next opens", "[[],[],[],[]]", 2, false],
    ["brackets inside a string", '{"a": "[[[[{{{{"}', 1, false],
    ["an escaped quote inside a string", '{"a": "x\\"[[[["}', 1, false],
    ["an escaped backslash ends the string before the brackets", '{"a": "x\\\\", "b": [[1]]}', 2, true],
    ["an unterminated string (left to JSON.parse)", '{"a": "[[[[', 1, false],
  ])("%s", (_name, text, max, expected) => {
    expect(nestsDeeperThan(text, max)).toBe(expected);
  });

  it("agrees with the depth of parsed JSON on random documents", () => {
    let seed = 7;
    const next = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    const make = (depth: number): unknown => {
      if (depth === 0 || next() < 0.3) return next() < 0.5 ? 'x"[\\\\{' : 1;
      return next() < 0.5 ? [make(depth - 1), make(depth - 1)] : { "k[": make(depth - 1), k: make(depth - 1) };
    };
    const depthOf = (v: unknown): number => (typeof v === "object" && v !== null ? 1 + Math.max(0, ...Object.values(v).map(depthOf)) : 0);
    for (let i = 0; i < 300; i++) {
      const doc = make(8);
      const depth = depthOf(doc);
      const text = JSON.stringify(doc);
      expect(nestsDeeperThan(text, depth)).toBe(false);
      if (depth > 0) expect(nestsDeeperThan(text, depth - 1)).toBe(true);
    }
  });
});
