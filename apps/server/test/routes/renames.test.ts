/** Issue 8: a rename is one batch operation; history and the change feed record it; a teammate's edit of the old path follows the file. */
import { describe, expect, it } from "vitest";
import { sha256Hex, type Change } from "@teammem/protocol";
import { fakeGithubPat } from "@teammem/scanner/testing";
import { DATABASE_KINDS } from "../../src/testing.js";
import { opId, useHarness } from "./harness.js";

describe.each(DATABASE_KINDS)("rename operations on %s", (kind) => {
  const h = useHarness(kind);

  let nsCounter = 0;
  const freshNs = () => `rename-${kind}-${++nsCounter}`;
  const put = (path: string, baseVersion: number, content: string, extra: Record<string, unknown> = {}) => ({ opId: opId("put"), path, baseVersion, content, ...extra });
  const rename = (from: string, fromVersion: number, to: string, content: string, extra: Record<string, unknown> = {}) => ({
    opId: opId("mv"),
    path: to,
    baseVersion: 0,
    content,
    renameFrom: from,
    renameFromVersion: fromVersion,
    ...extra,
  });
  const head = async (ns: string, path: string) => (await h.call("GET", `/v1/namespaces/${ns}/entry?path=${encodeURIComponent(path)}`, h.tokens.member)).json();
  const changes = async (ns: string, since = 0) => ((await h.call("GET", `/v1/namespaces/${ns}/changes?since=${since}`, h.tokens.member)).json() as { changes: Change[] }).changes;
  const history = async (ns: string, path: string) => (await h.call("GET", `/v1/namespaces/${ns}/history?path=${encodeURIComponent(path)}`, h.tokens.member)).json();
  const notes = "# Build\n- make\n- make check\n";

  it("moves the file in one operation: a rename tombstone, a rename version, both in history and the change feed", async () => {
    const ns = freshNs();
    await h.one(ns, put("a.md", 0, notes));
    const moved = await h.one(ns, rename("a.md", 1, "docs/a.md", notes, { opId: "rename-op-1" }));
    expect(moved).toEqual({ opId: "rename-op-1", path: "docs/a.md", status: "applied", version: 1, sha256: sha256Hex(notes), deleted: false, cursor: 3, renamedFrom: { path: "a.md", version: 2, cursor: 2 } });
    expect(await head(ns, "a.md")).toMatchObject({ version: 2, deleted: true });
    expect(await head(ns, "docs/a.md")).toMatchObject({ version: 1, content: notes });
    expect((await changes(ns)).map((c) => [c.path, c.version, c.deleted, c.renamedFrom, c.renamedTo])).toEqual([
      ["a.md", 2, true, undefined, "docs/a.md"],
      ["docs/a.md", 1, false, "a.md", undefined],
    ]);
    expect((await history(ns, "a.md")).versions[0]).toMatchObject({ version: 2, kind: "rename", deleted: true, renamedTo: "docs/a.md" });
    expect((await history(ns, "docs/a.md")).versions[0]).toMatchObject({ version: 1, kind: "rename", renamedFrom: "a.md" });
    // A replay gets the stored result; the same opId for another rename is refused.
    expect(await h.one(ns, rename("a.md", 1, "docs/a.md", notes, { opId: "rename-op-1" }))).toEqual(moved);
    expect(await h.one(ns, rename("a.md", 1, "docs/b.md", notes, { opId: "rename-op-1" }))).toMatchObject({ status: "rejected", code: "invalid_request", details: { reason: "op_id_reused" } });
  });

  it("carries a teammate's edit of the old path, made after the renamer's base, to the new path", async () => {
    const ns = freshNs();
    await h.one(ns, put("MEMORY.md", 0, notes));
    await h.one(ns, put("MEMORY.md", 1, notes + "- bob: ccache\n"), h.tokens.member2);
    const moved = await h.one(ns, rename("MEMORY.md", 1, "team-notes/MEMORY.md", notes + "- ann: lint\n", { merge: "union" }));
    expect(moved).toMatchObject({
      status: "merged",
      path: "team-notes/MEMORY.md",
      content: notes + "- bob: ccache\n- ann: lint\n",
      headAuthor: "bob",
      renamedFrom: { path: "MEMORY.md", version: 3 },
    });
    expect(await head(ns, "MEMORY.md")).toMatchObject({ deleted: true });
  });

  it("keeps the teammate's text at the new path and the renamer's as a conflict record when their edits overlap", async () => {
    const ns = freshNs();
    await h.one(ns, put("style.md", 0, "indent: 2\n"));
    await h.one(ns, put("style.md", 1, "indent: tabs\n"), h.tokens.member2);
    const moved = await h.one(ns, rename("style.md", 1, "docs/style.md", "indent: 4\n"));
    expect(moved).toMatchObject({ status: "conflict", path: "docs/style.md", headVersion: 1, headContent: "indent: tabs\n", headAuthor: "bob", renamedFrom: { path: "style.md", version: 3 } });
    const open = (await h.call("GET", `/v1/namespaces/${ns}/conflicts`, h.tokens.member)).json().conflicts;
    expect(open).toEqual([expect.objectContaining({ path: "docs/style.md", content: "indent: 4\n", status: "open" })]);
  });

  it("lets a put of the old path from a base before the rename follow the file instead of bringing the old path back", async () => {
    const ns = freshNs();
    await h.one(ns, put("a.md", 0, notes));
    await h.one(ns, rename("a.md", 1, "docs/a.md", notes), h.tokens.member2);
    const followed = await h.one(ns, put("a.md", 1, notes + "- make install\n", { merge: "union" }));
    expect(followed).toMatchObject({ status: "merged", path: "docs/a.md", version: 2, content: notes + "- make install\n", headAuthor: "bob", renamedFrom: { path: "a.md", version: 2 } });
    expect(followed.renamedFrom).toEqual({ path: "a.md", version: 2 }); // bob's tombstone: no cursor for this sender to move over
    expect(await head(ns, "a.md")).toMatchObject({ deleted: true, version: 2 });
    expect(await head(ns, "docs/a.md")).toMatchObject({ version: 2, content: notes + "- make install\n" });
  });

  it("renames to another letter case, and moves onto a path the same rename already wrote", async () => {
    const ns = freshNs();
    await h.one(ns, put("readme.md", 0, notes));
    expect(await h.one(ns, rename("readme.md", 1, "README.md", notes))).toMatchObject({ status: "applied", path: "README.md", version: 1 });
    // A teammate's identical rename, sent later: nothing new, the result names the tombstone.
    expect(await h.one(ns, rename("readme.md", 1, "README.md", notes), h.tokens.member2)).toMatchObject({ status: "applied", path: "README.md", version: 1, renamedFrom: { path: "readme.md", version: 2 } });
  });

  it("refuses a rename onto a live path with other content as version_conflict and writes nothing", async () => {
    const ns = freshNs();
    await h.one(ns, put("a.md", 0, notes));
    await h.one(ns, put("b.md", 0, "other\n"));
    expect(await h.one(ns, rename("a.md", 1, "b.md", notes))).toMatchObject({ status: "rejected", code: "version_conflict", details: { path: "b.md", currentVersion: 1 } });
    expect(await head(ns, "a.md")).toMatchObject({ version: 1, deleted: false });
    expect((await changes(ns)).map((c) => c.cursor)).toEqual([1, 2]);
  });

  it("rolls the tombstone back when the new path clashes with a folder, and refuses bad old paths", async () => {
    const ns = freshNs();
    await h.one(ns, put("a.md", 0, notes));
    await h.one(ns, put("dir/x.md", 0, "x\n"));
    expect(await h.one(ns, rename("a.md", 1, "dir", notes))).toMatchObject({ status: "rejected", code: "path_type_conflict" });
    expect(await head(ns, "a.md")).toMatchObject({ version: 1, deleted: false });
    expect(await h.one(ns, rename("a.md", 1, "a.md", notes))).toMatchObject({ status: "rejected", code: "invalid_request", details: { reason: "rename_to_itself" } });
    expect(await h.one(ns, rename("../a.md", 1, "c.md", notes))).toMatchObject({ status: "rejected", code: "invalid_path" });
    expect(await h.one(ns, rename(`${fakeGithubPat()}.md`, 1, "c.md", notes))).toMatchObject({ status: "rejected", code: "secret_detected" });
    const bad = await h.call("POST", `/v1/namespaces/${ns}/batch`, h.tokens.member, { operations: [rename("a.md", 0, "c.md", notes)] });
    expect(bad.statusCode).toBe(400); // renameFromVersion must be at least 1
    expect(await head(ns, "a.md")).toMatchObject({ version: 1, deleted: false });
  });

  it("creates the new path without a tombstone when the old path was deleted meanwhile", async () => {
    const ns = freshNs();
    await h.one(ns, put("a.md", 0, notes));
    await h.one(ns, { opId: opId("del"), path: "a.md", baseVersion: 1, delete: true }, h.tokens.member2);
    expect(await h.one(ns, rename("a.md", 1, "docs/a.md", notes))).toMatchObject({ status: "applied", path: "docs/a.md", version: 1, renamedFrom: { path: "a.md", version: 2 } });
    expect((await history(ns, "a.md")).versions.map((v: { kind: string }) => v.kind)).toEqual(["delete", "write"]);
  });
});
