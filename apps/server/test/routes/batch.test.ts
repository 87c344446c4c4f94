import { describe, expect, it } from "vitest";
import { sha256Hex, type OperationResult } from "@teammem/protocol";
import { DATABASE_KINDS } from "../../src/testing.js";
import { opId, useHarness } from "./harness.js";

describe.each(DATABASE_KINDS)("batch writes on %s", (kind) => {
  const h = useHarness(kind);

  let nsCounter = 0;
  const freshNs = () => `ns-${kind}-${++nsCounter}`;
  const batch = (ns: string, operations: unknown[], token?: string) => h.batch(ns, operations, { token, clientId: "laptop-1" });
  const one = async (ns: string, op: Record<string, unknown>, token?: string): Promise<OperationResult> => (await batch(ns, [op], token))[0]!;
  const put = (path: string, baseVersion: number, content: string, id = opId("put")) => ({ opId: id, path, baseVersion, content });
  const del = (path: string, baseVersion: number, id = opId("del")) => ({ opId: id, path, baseVersion, delete: true as const });
  const entry = async (ns: string, path: string) => (await h.call("GET", `/v1/namespaces/${ns}/entry?path=${encodeURIComponent(path)}`, h.tokens.member)).json();

  it("fast-forwards a new path and a write on the head version as applied, at increasing cursors", async () => {
    const ns = freshNs();
    const first = await one(ns, put("team/a.md", 0, "one\n", "op-first-1"));
    expect(first).toEqual({ opId: "op-first-1", path: "team/a.md", status: "applied", version: 1, sha256: sha256Hex("one\n"), deleted: false, cursor: 1 });
    const second = await one(ns, put("team/a.md", 1, "two\n", "op-second-1"));
    expect(second).toEqual({ opId: "op-second-1", path: "team/a.md", status: "applied", version: 2, sha256: sha256Hex("two\n"), deleted: false, cursor: 2 });
  });

  it("merges non-overlapping concurrent edits into a new version and returns the merged content", async () => {
    const ns = freshNs();
    await one(ns, put("a.md", 0, "1\n2\n3\n4\n5\n"));
    await one(ns, put("a.md", 1, "ONE\n2\n3\n4\n5\n"));
    const res = await one(ns, put("a.md", 1, "1\n2\n3\n4\nFIVE\n", "op-merge-1"));
    expect(res).toEqual({
      opId: "op-merge-1",
      path: "a.md",
      status: "merged",
      version: 3,
      sha256: sha256Hex("ONE\n2\n3\n4\nFIVE\n"),
      content: "ONE\n2\n3\n4\nFIVE\n",
      cursor: 3,
      headAuthor: "ann",
    });
    expect(await entry(ns, "a.md")).toMatchObject({ version: 3, content: "ONE\n2\n3\n4\nFIVE\n" });
  });

  it("keeps the head and records a conflict for overlapping edits, visible in conflicts and history", async () => {
    const ns = freshNs();
    await one(ns, put("a.md", 0, "title\nbody\n"));
    await one(ns, put("a.md", 1, "title\nhead body\n"));
    const res = await one(ns, put("a.md", 1, "title\nmy body\n", "op-conflict-1"));
    expect(res).toEqual({
      opId: "op-conflict-1",
      path: "a.md",
      status: "conflict",
      conflictId: expect.any(String),
      headVersion: 2,
      headSha256: sha256Hex("title\nhead body\n"),
      headContent: "title\nhead body\n",
      cursor: 3,
      headAuthor: "ann",
    });
    expect(await entry(ns, "a.md")).toMatchObject({ version: 2, content: "title\nhead body\n" });
    const conflicts = (await h.call("GET", `/v1/namespaces/${ns}/conflicts`, h.tokens.reader)).json();
    expect(conflicts.conflicts).toEqual([
      expect.objectContaining({ id: (res as { conflictId: string }).conflictId, path: "a.md", baseVersion: 1, headVersion: 2, deleted: false, content: "title\nmy body\n", status: "open", author: "ann", clientId: "laptop-1", opId: "op-conflict-1" }),
    ]);
  });

  it("rejects an invalid path with invalid_path naming the rule and stores nothing", async () => {
    const ns = freshNs();
    const res = await one(ns, put("../x", 0, "x", "op-badpath-1"));
    expect(res).toEqual({
      opId: "op-badpath-1",
      path: "../x",
      status: "rejected",
      code: "invalid_path",
      message: "path must not contain '.' or '..' segments",
      details: { rule: "dot_segment" },
    });
    const changes = (await h.call("GET", `/v1/namespaces/${ns}/changes`, h.tokens.member)).json();
    expect(changes).toEqual({ changes: [], nextCursor: 0, hasMore: false, server: expect.objectContaining({ epoch: expect.any(String) }) });
  });

  it("returns the identical stored result on a replay of every result kind and applies nothing twice", async () => {
    const ns = freshNs();
    const ops = [
      put("r/applied.md", 0, "a\nb\nc\nd\n", "replay-applied"),
      put("r/bad\\path", 0, "x", "replay-rejected"),
    ];
    const firstRound = await batch(ns, ops);
    await one(ns, put("r/applied.md", 1, "A\nb\nc\nd\n"));
    const mergeOp = put("r/applied.md", 1, "a\nb\nc\nD\n", "replay-merged");
    const conflictOp = put("r/applied.md", 1, "X\nb\nc\nd\n", "replay-conflict");
    const secondRound = await batch(ns, [mergeOp, conflictOp]);
    expect(secondRound.map((r) => r.status)).toEqual(["merged", "conflict"]);
    const before = (await h.call("GET", `/v1/namespaces/${ns}/history?path=r/applied.md`, h.tokens.member)).json();

    expect(await batch(ns, ops)).toEqual(firstRound);
    expect(await batch(ns, [mergeOp, conflictOp])).toEqual(secondRound);
    expect(firstRound.map((r) => r.status)).toEqual(["applied", "rejected"]);
    const after = (await h.call("GET", `/v1/namespaces/${ns}/history?path=r/applied.md`, h.tokens.member)).json();
    expect(after).toEqual(before);
    expect(after.versions).toHaveLength(3);
    expect(after.conflicts).toHaveLength(1);
  });

  it("refuses an opId reused for a different operation", async () => {
    const ns = freshNs();
    await one(ns, put("a.md", 0, "a", "reused-op-1"));
    expect(await one(ns, put("a.md", 0, "b", "reused-op-1"))).toEqual({
      opId: "reused-op-1",
      path: "a.md",
      status: "rejected",
      code: "invalid_request",
      message: "opId was already used for a different operation; use a new opId for each operation",
      details: { reason: "op_id_reused" },
    });
  });

  it("lets an edit win over a concurrent delete and keeps the delete in history", async () => {
    const ns = freshNs();
    await one(ns, put("a.md", 0, "v1\n"));
    expect(await one(ns, del("a.md", 1))).toMatchObject({ status: "applied", version: 2, deleted: true, sha256: null });
    const edit = await one(ns, put("a.md", 1, "edited\n", "edit-wins-1"));
    expect(edit).toEqual({ opId: "edit-wins-1", path: "a.md", status: "merged", version: 3, sha256: sha256Hex("edited\n"), content: "edited\n", cursor: 3, headAuthor: "ann" });
    const history = (await h.call("GET", `/v1/namespaces/${ns}/history?path=a.md`, h.tokens.member)).json();
    expect(history.versions.map((v: { version: number; kind: string; deleted: boolean }) => [v.version, v.kind, v.deleted])).toEqual([
      [3, "merge", false],
      [2, "delete", true],
      [1, "write", false],
    ]);
  });

  it("rejects a delete of a path that never existed with not_found, alone and in a run, replays that answer, and still applies a delete of a deleted path (try17 L9)", async () => {
    const ns = freshNs();
    expect(await one(ns, del("never.md", 0, "op-never-1"))).toEqual({
      opId: "op-never-1",
      path: "never.md",
      status: "rejected",
      code: "not_found",
      message: "no entry at this path: it never existed, so there is nothing to delete",
    });
    // In a run of several operations (the set-based path).
    const run = await batch(ns, [put("a.md", 0, "a\n"), del("never2.md", 0, "op-never-2"), del("a.md", 1, "op-del-a")]);
    expect(run.map((r) => [r.path, r.status, "code" in r ? r.code : undefined])).toEqual([
      ["a.md", "applied", undefined],
      ["never2.md", "rejected", "not_found"],
      ["a.md", "applied", undefined],
    ]);
    // A replay (same opId, same operation) gets the same answer, even after the path came to exist.
    await one(ns, put("never.md", 0, "now\n"));
    expect(await one(ns, del("never.md", 0, "op-never-1"))).toMatchObject({ status: "rejected", code: "not_found" });
    expect(await one(ns, del("never2.md", 0, "op-never-2"))).toMatchObject({ status: "rejected", code: "not_found" });
    // A delete of an entry deleted already is applied (idempotent), at the tombstone's version.
    expect(await one(ns, del("a.md", 2))).toMatchObject({ status: "applied", version: 2, deleted: true });
    expect(await one(ns, del("a.md", 0))).toMatchObject({ status: "applied", version: 2, deleted: true });
    expect(await one(ns, del("a.md", 1, "op-del-a"))).toMatchObject({ status: "applied", version: 2, deleted: true }); // the replay
    expect(((await h.call("GET", `/v1/namespaces/${ns}/changes`, h.tokens.member)).json().changes as { path: string }[]).map((c) => c.path).sort()).toEqual(["a.md", "never.md"]);
  });

  it("answers a compare-and-set delete of a path that never existed with 404 not_found (try17 L9)", async () => {
    const ns = freshNs();
    await one(ns, put("x.md", 0, "x\n"));
    const res = await h.call("PUT", `/v1/namespaces/${ns}/entry?path=never.md`, h.tokens.member, { baseVersion: 0, delete: true });
    expect([res.statusCode, res.json()]).toEqual([404, { code: "not_found", message: "no entry at this path: it never existed, so there is nothing to delete" }]);
  });

  it("records a delete against a head edited since its base as a conflict and keeps the edit", async () => {
    const ns = freshNs();
    await one(ns, put("a.md", 0, "v1\n"));
    await one(ns, put("a.md", 1, "v2\n"));
    const res = await one(ns, del("a.md", 1, "stale-delete-1"));
    expect(res).toEqual({
      opId: "stale-delete-1",
      path: "a.md",
      status: "conflict",
      conflictId: expect.any(String),
      headVersion: 2,
      headSha256: sha256Hex("v2\n"),
      headContent: "v2\n",
      cursor: 3,
      headAuthor: "ann",
    });
    expect(await entry(ns, "a.md")).toMatchObject({ version: 2, deleted: false, content: "v2\n" });
    const conflicts = (await h.call("GET", `/v1/namespaces/${ns}/conflicts`, h.tokens.member)).json();
    expect(conflicts.conflicts[0]).toMatchObject({ deleted: true, content: null, sha256: null, baseVersion: 1, headVersion: 2 });
  });

  it("treats creating a path that exists as a concurrent edit from an empty base", async () => {
    const ns = freshNs();
    await one(ns, put("a.md", 0, "mine\n"));
    expect(await one(ns, put("a.md", 0, "mine\n"))).toMatchObject({ status: "applied", version: 1 });
    expect(await one(ns, put("a.md", 0, "theirs\n"))).toMatchObject({ status: "conflict", headVersion: 1, headContent: "mine\n" });
  });

  it("applies a write equal to the head without a new version", async () => {
    const ns = freshNs();
    await one(ns, put("a.md", 0, "x\n"));
    expect(await one(ns, put("a.md", 1, "x\n", "same-content-1"))).toEqual({
      opId: "same-content-1",
      path: "a.md",
      status: "applied",
      version: 1,
      sha256: sha256Hex("x\n"),
      deleted: false,
      cursor: 1,
    });
  });

  it("rejects a base version newer than the head with version_conflict", async () => {
    const ns = freshNs();
    expect(await one(ns, put("a.md", 5, "x", "ahead-op-1"))).toEqual({
      opId: "ahead-op-1",
      path: "a.md",
      status: "rejected",
      code: "version_conflict",
      message: "baseVersion 5 is newer than the head version 0",
      details: { currentVersion: 0 },
    });
  });

  it("ends 20 parallel writers from one base with exactly one applied and every writer's content kept", async () => {
    const ns = freshNs();
    const lines = Array.from({ length: 40 }, (_, i) => `line ${i}\n`);
    await one(ns, put("hot.md", 0, lines.join("")));
    const writers = Array.from({ length: 20 }, (_, w) => {
      const mine = [...lines];
      mine[w * 2] = `writer ${w} was here\n`;
      return put("hot.md", 1, mine.join(""), `writer-${w}-op`);
    });
    const results = (await Promise.all(writers.map((op, w) => one(ns, op, w % 2 ? h.tokens.member : h.tokens.member2)))).map((r) => r.status);
    expect(results.filter((s) => s === "applied")).toHaveLength(1);
    expect(results.every((s) => s === "applied" || s === "merged" || s === "conflict")).toBe(true);
    const head = await entry(ns, "hot.md");
    const history = (await h.call("GET", `/v1/namespaces/${ns}/history?path=hot.md`, h.tokens.member)).json();
    const kept = [head.content, ...history.conflicts.map((c: { content: string }) => c.content)].join("");
    for (let w = 0; w < 20; w++) expect(kept).toContain(`writer ${w} was here\n`);
    // every change of the namespace got its own cursor, gap-free
    const cursors = [...history.versions.map((v: { cursor: number }) => v.cursor), ...history.conflicts.map((c: { cursor: number }) => c.cursor)].sort((a, b) => a - b);
    expect(cursors).toEqual(Array.from({ length: 21 }, (_, i) => i + 1));
  });
});
