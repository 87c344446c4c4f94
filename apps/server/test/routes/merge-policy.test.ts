/** Issue 8: the batch operation carries the client's merge policy; the server's three-way merge follows it. */
import { describe, expect, it } from "vitest";
import { sha256Hex } from "@teammem/protocol";
import { DATABASE_KINDS } from "../../src/testing.js";
import { opId, useHarness } from "./harness.js";

describe.each(DATABASE_KINDS)("merge policy of batch puts on %s", (kind) => {
  const h = useHarness(kind);

  let nsCounter = 0;
  const freshNs = () => `merge-${kind}-${++nsCounter}`;
  const put = (path: string, baseVersion: number, content: string, merge?: string, id = opId("put")) => ({
    opId: id,
    path,
    baseVersion,
    content,
    ...(merge === undefined ? {} : { merge }),
  });
  const head = async (ns: string, path: string) => (await h.call("GET", `/v1/namespaces/${ns}/entry?path=${path}`, h.tokens.member)).json();
  const memory = "# Memory\n- build with make\n";

  it("keeps both lines appended concurrently under union, the head's (bob's) first, and names bob", async () => {
    const ns = freshNs();
    await h.one(ns, put("MEMORY.md", 0, memory));
    await h.one(ns, put("MEMORY.md", 1, memory + "- bob: tests need docker\n"), h.tokens.member2);
    const res = await h.one(ns, put("MEMORY.md", 1, memory + "- ann: lint before push\n", "union", "union-append-1"));
    const merged = memory + "- bob: tests need docker\n- ann: lint before push\n";
    expect(res).toEqual({ opId: "union-append-1", path: "MEMORY.md", status: "merged", version: 3, sha256: sha256Hex(merged), content: merged, cursor: 3, headAuthor: "bob" });
    expect(await head(ns, "MEMORY.md")).toMatchObject({ version: 3, content: merged });
  });

  it("records a conflict for the same concurrent appends without a policy (default conflict)", async () => {
    const ns = freshNs();
    await h.one(ns, put("notes.json", 0, "[\n"));
    await h.one(ns, put("notes.json", 1, "[\n1\n"), h.tokens.member2);
    expect(await h.one(ns, put("notes.json", 1, "[\n2\n"))).toMatchObject({ status: "conflict", headVersion: 2, headContent: "[\n1\n", headAuthor: "bob" });
    expect(await h.one(ns, put("notes.json", 1, "[\n2\n", "conflict"))).toMatchObject({ status: "conflict", headVersion: 2 });
  });

  it("unites two different creations of one path under union (empty base), the shared heading once", async () => {
    const ns = freshNs();
    await h.one(ns, put("AGENTS.md", 0, "# Agents\n- from bob\n"), h.tokens.member2);
    expect(await h.one(ns, put("AGENTS.md", 0, "# Agents\n- from ann\n", "union"))).toMatchObject({
      status: "merged",
      version: 2,
      content: "# Agents\n- from bob\n- from ann\n",
    });
  });

  it("still records a conflict under union when both changed the same line", async () => {
    const ns = freshNs();
    await h.one(ns, put("MEMORY.md", 0, memory));
    await h.one(ns, put("MEMORY.md", 1, "# Memory\n- build with ninja\n"), h.tokens.member2);
    expect(await h.one(ns, put("MEMORY.md", 1, "# Memory\n- build with bazel\n", "union"))).toMatchObject({ status: "conflict", headVersion: 2 });
  });

  it("merges a whole-file change to CRLF with a teammate's content edit, in CRLF", async () => {
    const ns = freshNs();
    await h.one(ns, put("style.md", 0, "a\nb\nc\n"));
    await h.one(ns, put("style.md", 1, "a\nB\nc\n"), h.tokens.member2);
    expect(await h.one(ns, put("style.md", 1, "a\r\nb\r\nc\r\n"))).toMatchObject({ status: "merged", version: 3, content: "a\r\nB\r\nc\r\n" });
  });

  it("rejects an unknown merge policy with invalid_request and stores nothing", async () => {
    const ns = freshNs();
    const res = await h.call("POST", `/v1/namespaces/${ns}/batch`, h.tokens.member, { operations: [put("a.md", 0, "x\n", "ours")] });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: "invalid_request" });
    expect((await h.call("GET", `/v1/namespaces/${ns}/entry?path=a.md`, h.tokens.member)).statusCode).toBe(404);
  });

  it("refuses an opId reused with another merge policy", async () => {
    const ns = freshNs();
    await h.one(ns, put("a.md", 0, "x\n", "union", "policy-reuse-1"));
    expect(await h.one(ns, put("a.md", 0, "x\n", "union", "policy-reuse-1"))).toMatchObject({ status: "applied", version: 1 });
    expect(await h.one(ns, put("a.md", 0, "x\n", "conflict", "policy-reuse-1"))).toMatchObject({ status: "rejected", code: "invalid_request", details: { reason: "op_id_reused" } });
  });
});
