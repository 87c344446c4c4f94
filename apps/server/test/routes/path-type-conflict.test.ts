import { describe, expect, it } from "vitest";
import { DATABASE_KINDS } from "../../src/testing.js";
import { ancestorKeys, escapeLike } from "../../src/store/path-type-clash.js";
import { opId, useHarness } from "./harness.js";

describe("path prefixes", () => {
  it("lists every proper ancestor and escapes LIKE wildcards", () => {
    expect(ancestorKeys("a/b/c.md")).toEqual(["a", "a/b"]);
    expect(ancestorKeys("top.md")).toEqual([]);
    expect(escapeLike("a_b%c\\d")).toBe("a\\_b\\%c\\\\d");
  });
});

describe.each(DATABASE_KINDS)("file/folder clashes on %s", (kind) => {
  const h = useHarness(kind);
  const put = (ns: string, path: string, body: unknown) => h.call("PUT", `/v1/namespaces/${ns}/entry?path=${encodeURIComponent(path)}`, h.tokens.member, body);

  it("refuses a file where a live folder is (topics vs topics/build.md), transiently: it passes once the folder's entry is deleted", async () => {
    await h.one("tc1", { opId: opId("w"), path: "topics/build.md", baseVersion: 0, content: "b\n" });
    const clash = await h.one("tc1", { opId: "type-clash-1", path: "topics", baseVersion: 0, content: "t\n" });
    expect(clash).toEqual({
      opId: "type-clash-1",
      path: "topics",
      status: "rejected",
      code: "path_type_conflict",
      message: expect.stringContaining("topics/build.md"),
      details: { path: "topics/build.md" },
    });
    await h.one("tc1", { opId: opId("d"), path: "topics/build.md", baseVersion: 1, delete: true });
    expect(await h.one("tc1", { opId: "type-clash-1", path: "topics", baseVersion: 0, content: "t\n" })).toMatchObject({ status: "applied", version: 1 });
  });

  it("refuses a path below a live file (MEMORY.md/child), also when the ancestor differs by case", async () => {
    await h.one("tc2", { opId: opId("w"), path: "team/MEMORY.md", baseVersion: 0, content: "m\n" });
    for (const path of ["team/MEMORY.md/child", "team/memory.md/deep/child.md", "TEAM/MEMORY.md/x"]) {
      expect(await h.one("tc2", { opId: opId("c"), path, baseVersion: 0, content: "c\n" })).toMatchObject({
        status: "rejected",
        code: "path_type_conflict",
        details: { path: "team/MEMORY.md" },
      });
    }
    // siblings sharing a name prefix are no clash
    expect(await h.one("tc2", { opId: opId("s"), path: "team/MEMORY.md.bak", baseVersion: 0, content: "s\n" })).toMatchObject({ status: "applied" });
    expect(await h.one("tc2", { opId: opId("s"), path: "team/MEMORY/x.md", baseVersion: 0, content: "s\n" })).toMatchObject({ status: "applied" });
  });

  it("treats % and _ in a path literally when looking for entries below it", async () => {
    await h.one("tc3", { opId: opId("w"), path: "aXb/x.md", baseVersion: 0, content: "1\n" });
    await h.one("tc3", { opId: opId("w"), path: "p-100/y.md", baseVersion: 0, content: "1\n" });
    expect(await h.one("tc3", { opId: opId("u"), path: "a_b", baseVersion: 0, content: "2\n" })).toMatchObject({ status: "applied" });
    expect(await h.one("tc3", { opId: opId("p"), path: "p%", baseVersion: 0, content: "2\n" })).toMatchObject({ status: "applied" });
    expect(await h.one("tc3", { opId: opId("q"), path: "p-100", baseVersion: 0, content: "2\n" })).toMatchObject({ code: "path_type_conflict" });
  });

  it("answers PUT /entry with 409 path_type_conflict naming the clashing path", async () => {
    expect((await put("tc4", "docs/a.md", { baseVersion: 0, content: "a\n" })).statusCode).toBe(200);
    const res = await put("tc4", "docs", { baseVersion: 0, content: "d\n" });
    expect([res.statusCode, res.json()]).toEqual([409, { code: "path_type_conflict", message: expect.stringContaining("docs/a.md"), details: { path: "docs/a.md" } }]);
    const below = await put("tc4", "docs/a.md/b.md", { baseVersion: 0, content: "b\n" });
    expect([below.statusCode, below.json().code]).toEqual([409, "path_type_conflict"]);
  });
});
