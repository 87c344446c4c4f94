import { describe, expect, it } from "vitest";
import { sha256Hex } from "@teammem/protocol";
import { DATABASE_KINDS } from "../../src/testing.js";
import { opId, useHarness } from "./harness.js";

describe.each(DATABASE_KINDS)("namespaces and the change feed on %s", (kind) => {
  const h = useHarness(kind);
  const write = (ns: string, operations: unknown[]) => h.call("POST", `/v1/namespaces/${ns}/batch`, h.tokens.member, { operations });

  it("creates a namespace with 201, answers 200 when it exists, and lists it with its live entry count", async () => {
    const created = await h.call("PUT", "/v1/namespaces/repo-one", h.tokens.member);
    expect([created.statusCode, created.json()]).toEqual([201, { name: "repo-one", cursor: 0, created: true, entries: 0, server: expect.objectContaining({ epoch: expect.any(String) }) }]);
    const again = await h.call("PUT", "/v1/namespaces/repo-one", h.tokens.admin);
    expect([again.statusCode, again.json()]).toEqual([200, { name: "repo-one", cursor: 0, created: false, entries: 0, server: expect.objectContaining({ epoch: expect.any(String) }) }]);
    await write("repo-one", [
      { opId: opId("a"), path: "a.md", baseVersion: 0, content: "a" },
      { opId: opId("b"), path: "b.md", baseVersion: 0, content: "b" },
    ]);
    await write("repo-one", [{ opId: opId("d"), path: "b.md", baseVersion: 1, delete: true }]);
    const list = await h.call("GET", "/v1/namespaces", h.tokens.reader);
    expect(list.json()).toEqual({ namespaces: [{ name: "repo-one", cursor: 3, entries: 1 }], server: expect.objectContaining({ epoch: expect.any(String) }) });
  });

  it("refuses every namespace route without a valid bearer token with 401 unauthorized", async () => {
    for (const [method, url] of [
      ["GET", "/v1/namespaces"],
      ["PUT", "/v1/namespaces/repo-one"],
      ["POST", "/v1/namespaces/repo-one/batch"],
      ["GET", "/v1/namespaces/repo-one/changes"],
      ["GET", "/v1/namespaces/repo-one/entry?path=a.md"],
    ] as const) {
      const none = await h.app.inject({ method, url });
      const garbage = await h.app.inject({ method, url, headers: { authorization: "Bearer not.a.jwt" } });
      expect([url, none.statusCode, none.json().code, garbage.statusCode, garbage.json().code]).toEqual([url, 401, "unauthorized", 401, "unauthorized"]);
    }
  });

  it("refuses an invalid namespace name with invalid_request", async () => {
    const res = await h.call("PUT", "/v1/namespaces/-bad", h.tokens.member);
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe("invalid_request");
  });

  it("lets a reader read but not create or write (403 forbidden)", async () => {
    expect((await h.call("PUT", "/v1/namespaces/reader-ns", h.tokens.reader)).json()).toEqual({ code: "forbidden", message: "this action needs the member role" });
    const res = await h.call("POST", "/v1/namespaces/repo-one/batch", h.tokens.reader, { operations: [{ opId: opId("r"), path: "x.md", baseVersion: 0, content: "x" }] });
    expect(res.statusCode).toBe(403);
    expect((await h.call("GET", "/v1/namespaces/repo-one/changes", h.tokens.reader)).statusCode).toBe(200);
  });

  it("answers 404 not_found for another team's namespace, exactly as for a missing one", async () => {
    const theirs = await h.call("GET", "/v1/namespaces/repo-one/changes", h.tokens.otherTeam);
    const missing = await h.call("GET", "/v1/namespaces/no-such-ns/changes", h.tokens.otherTeam);
    expect([theirs.statusCode, missing.statusCode]).toEqual([404, 404]);
    expect(theirs.json()).toEqual({ code: "not_found", message: "no namespace of this name in this team" });
    expect(missing.json()).toEqual({ code: "not_found", message: "no namespace of this name in this team" });
    expect((await h.call("GET", "/v1/namespaces", h.tokens.otherTeam)).json()).toEqual({ namespaces: [], server: expect.objectContaining({ epoch: expect.any(String) }) });
    // writing to the same name from the other team makes that team its own namespace
    const own = await h.call("POST", "/v1/namespaces/repo-one/batch", h.tokens.otherTeam, { operations: [{ opId: opId("o"), path: "a.md", baseVersion: 0, content: "theirs" }] });
    expect(own.json().results[0]).toMatchObject({ status: "applied", version: 1, cursor: 1 });
  });

  it("pages the change feed in cursor order with the latest state of each entry, tombstones without content", async () => {
    const ns = "feed";
    await write(ns, [
      { opId: opId("1"), path: "one.md", baseVersion: 0, content: "1" },
      { opId: opId("2"), path: "two.md", baseVersion: 0, content: "2" },
      { opId: opId("3"), path: "three.md", baseVersion: 0, content: "3" },
    ]);
    await write(ns, [
      { opId: opId("1b"), path: "one.md", baseVersion: 1, content: "1b" },
      { opId: opId("2d"), path: "two.md", baseVersion: 1, delete: true },
    ]);
    const page1 = (await h.call("GET", `/v1/namespaces/${ns}/changes?since=0&limit=2`, h.tokens.reader)).json();
    expect(page1).toEqual({
      changes: [
        { cursor: 3, path: "three.md", version: 1, deleted: false, sha256: sha256Hex("3"), size: 1, content: "3", author: "ann", createdAt: expect.any(String) },
        { cursor: 4, path: "one.md", version: 2, deleted: false, sha256: sha256Hex("1b"), size: 2, content: "1b", author: "ann", createdAt: expect.any(String) },
      ],
      nextCursor: 4,
      hasMore: true,
      server: expect.objectContaining({ epoch: expect.any(String) }),
    });
    const page2 = (await h.call("GET", `/v1/namespaces/${ns}/changes?since=4&limit=2`, h.tokens.reader)).json();
    expect(page2).toEqual({
      changes: [{ cursor: 5, path: "two.md", version: 2, deleted: true, sha256: null, size: 0, content: null, author: "ann", createdAt: expect.any(String) }],
      nextCursor: 5,
      hasMore: false,
      server: expect.objectContaining({ epoch: expect.any(String) }),
    });
    expect((await h.call("GET", `/v1/namespaces/${ns}/changes?since=5`, h.tokens.reader)).json()).toEqual({ changes: [], nextCursor: 5, hasMore: false, server: expect.objectContaining({ epoch: expect.any(String) }) });
  });

  it("refuses bad change-feed queries with invalid_request", async () => {
    for (const q of ["since=-1", "since=abc", "limit=0", "limit=100000", "unknown=1"]) {
      const res = await h.call("GET", `/v1/namespaces/feed/changes?${q}`, h.tokens.reader);
      expect([q, res.statusCode, res.json().code]).toEqual([q, 400, "invalid_request"]);
    }
  });

  it("records a client's block report as a client_blocked audit event without content", async () => {
    const res = await h.call("POST", "/v1/namespaces/feed/block-reports", h.tokens.member, {
      clientId: "laptop-9",
      path: "team/leak.md",
      sha256: sha256Hex("whatever"),
      findings: [{ ruleId: "github-pat", label: "GitHub personal access token", line: 3, column: 7, fingerprint: "0123456789abcdef0123456789abcdef" }],
    });
    expect([res.statusCode, res.json()]).toEqual([202, { accepted: true }]);
  });
});
