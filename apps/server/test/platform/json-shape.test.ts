/** try15 F9, try16 F14: the shape check that runs before JSON.parse (http/json-shape.ts). */
import { describe, expect, it } from "vitest";
import { jsonShapeFault } from "../../src/http/json-shape.js";

const nestsDeeperThan = (text: string, max: number) => jsonShapeFault(text, max, Number.MAX_SAFE_INTEGER) === "too_deep";

describe("jsonShapeFault: depth", () => {
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

describe("jsonShapeFault: items", () => {
  it.each([
    ["an array of 3 items, limit 3", "[1,2,3]", undefined],
    ["an array of 4 items, limit 3", "[1,2,3,4]", "too_many_items"],
    ["an object of 4 members, limit 3", '{"a":1,"b":2,"c":3,"d":4}', "too_many_items"],
    ["commas inside strings", '["a,b,c,d,e", "x"]', undefined],
    ["commas of nested containers count for their own", "[[1,2,3],[1,2,3],[1,2,3]]", undefined],
    ["a nested container over the limit", '{"a": [1, [1,2,3,4]]}', "too_many_items"],
    ["a container closed, then another at the same depth: counted apart", "[[1,2,3],[4,5,6]]", undefined],
    ["top-level scalars apart by commas (not JSON: left to the parser)", "1,2,3,4,5", undefined],
  ])("%s", (_name, text, expected) => {
    expect(jsonShapeFault(text, 32, 3)).toBe(expected);
  });

  it("agrees with the widest container of parsed JSON on random documents", () => {
    let seed = 11;
    const next = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    const make = (depth: number): unknown => {
      if (depth === 0 || next() < 0.3) return next() < 0.5 ? ',",[' : 1;
      const n = Math.floor(next() * 6);
      const items = Array.from({ length: n }, () => make(depth - 1));
      return next() < 0.5 ? items : Object.fromEntries(items.map((v, i) => [`k,${i}`, v]));
    };
    const widest = (v: unknown): number => (typeof v === "object" && v !== null ? Math.max(Object.values(v).length, ...Object.values(v).map(widest)) : 0);
    for (let i = 0; i < 300; i++) {
      const doc = make(5);
      const w = widest(doc);
      const text = JSON.stringify(doc, null, i % 2 === 0 ? 0 : 2);
      expect(jsonShapeFault(text, 32, w)).toBeUndefined();
      if (w > 1) expect(jsonShapeFault(text, 32, w - 1)).toBe("too_many_items"); // (a limit of 0 is not one: no comma to count)
    }
  });
});
