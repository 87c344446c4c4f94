import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ClientId, fieldName, findIllFormedString, illFormedIssue, NamespaceName, OpId, onlyIllFormed, Text } from "../src/index.js";

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

describe("Text and the issues of an ill-formed string", () => {
  const Put = z.strictObject({ opId: OpId, path: Text.min(1), baseVersion: z.number(), content: Text });
  const Rename = Put.extend({ renameFrom: Text.min(1) });
  const Op = z.union([Put, Rename]);
  const issuesOf = (schema: z.ZodType, value: unknown) => schema.safeParse(value).error?.issues ?? [];

  it("refuses a lone surrogate in every string field, before and beside the field's other checks", () => {
    expect(Text.safeParse("😀 café").success).toBe(true);
    expect(Text.safeParse("a\ud800").success).toBe(false);
    expect(ClientId.safeParse("laptop\udc00").success).toBe(false);
    expect(NamespaceName.safeParse("acme/\ud800").success).toBe(false);
  });

  it("names the ill-formed value, key or union branch behind a failed parse, and nothing for other faults", () => {
    const op = { opId: "op-00000001", path: "a.md", baseVersion: 0, content: "x" };
    const batch = z.strictObject({ clientId: ClientId.optional(), operations: z.array(Op) });
    expect(illFormedIssue(issuesOf(batch, { clientId: "c\ud800", operations: [op] }), { clientId: "c\ud800", operations: [op] })).toEqual(["clientId"]);
    const inRename = { operations: [op, { ...op, renameFrom: "old\udbff.md" }] };
    expect(illFormedIssue(issuesOf(batch, inRename), inRename)).toEqual(["operations", 1, "renameFrom"]);
    const badKey = { operations: [op], ["k\ud83d"]: 1 };
    expect(illFormedIssue(issuesOf(batch, badKey), badKey)).toEqual(["k\ufffd"]);
    const forNumber = { operations: [{ ...op, baseVersion: "\udfff" }] };
    expect(illFormedIssue(issuesOf(batch, forNumber), forNumber)).toEqual(["operations", 0, "baseVersion"]);
    const wrongType = { operations: [{ ...op, baseVersion: "1" }] };
    expect(illFormedIssue(issuesOf(batch, wrongType), wrongType)).toBeNull();
  });

  it("tells an item that only its ill-formed strings fail from one that fails otherwise too", () => {
    const ill = { ...{ opId: "op-00000001", path: "a\ud800.md", baseVersion: 0, content: "x" }, renameFrom: "b.md" };
    expect(onlyIllFormed(issuesOf(Op, ill), ill)).toEqual(["path"]);
    const alsoWrong = { opId: "op-00000001", path: "a\ud800.md", baseVersion: "0", content: "x" };
    expect(onlyIllFormed(issuesOf(Op, alsoWrong), alsoWrong)).toBeNull();
    expect(illFormedIssue(issuesOf(Op, alsoWrong), alsoWrong)).toEqual(["path"]);
  });
});
