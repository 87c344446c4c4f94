import { describe, expect, it } from "vitest";
import { sha256Hex } from "@teammem/protocol";
import { DATABASE_KINDS } from "../../src/testing.js";
import { opId, useHarness } from "./harness.js";

describe.each(DATABASE_KINDS)("entry reads, compare-and-set, restore and conflict resolution on %s", (kind) => {
  const h = useHarness(kind);
  const cas = (ns: string, path: string, body: unknown, token = h.tokens.member) =>
    h.call("PUT", `/v1/namespaces/${ns}/entry?path=${encodeURIComponent(path)}`, token, body);
  const get = (url: string, token = h.tokens.reader) => h.call("GET", url, token);

  it("writes with compare-and-set and answers a stale base with 409 version_conflict and the current version", async () => {
    const first = await cas("cas", "a.md", { baseVersion: 0, content: "one\n" });
    expect([first.statusCode, first.json()]).toEqual([200, { path: "a.md", version: 1, deleted: false, sha256: sha256Hex("one\n"), cursor: 1, server: expect.objectContaining({ epoch: expect.any(String) }) }]);
    const second = await cas("cas", "a.md", { baseVersion: 1, content: "two\n" });
    expect(second.json()).toEqual({ path: "a.md", version: 2, deleted: false, sha256: sha256Hex("two\n"), cursor: 2, server: expect.objectContaining({ epoch: expect.any(String) }) });
    const stale = await cas("cas", "a.md", { baseVersion: 1, content: "three\n" });
    expect([stale.statusCode, stale.json()]).toEqual([
      409,
      { code: "version_conflict", message: "baseVersion 1 is not the current version 2; read the entry and write again", details: { currentVersion: 2 } },
    ]);
    const retried = await cas("cas", "a.md", { baseVersion: 1, content: "two\n" });
    expect([retried.statusCode, retried.json()]).toEqual([200, second.json()]);
    const deleted = await cas("cas", "a.md", { baseVersion: 2, delete: true });
    expect(deleted.json()).toEqual({ path: "a.md", version: 3, deleted: true, sha256: null, cursor: 3, server: expect.objectContaining({ epoch: expect.any(String) }) });
    const entry = await get("/v1/namespaces/cas/entry?path=a.md");
    expect(entry.json()).toEqual({ path: "a.md", version: 3, deleted: true, sha256: null, size: 0, content: null, cursor: 3, author: "ann", updatedAt: expect.any(String), server: expect.objectContaining({ epoch: expect.any(String) }) });
  });

  it("refuses compare-and-set bodies with wrong types, unknown fields and invalid paths", async () => {
    expect((await cas("cas", "b.md", { baseVersion: "0", content: "x" })).statusCode).toBe(400);
    expect((await cas("cas", "b.md", { baseVersion: 0, content: "x", extra: true })).statusCode).toBe(400);
    expect((await cas("cas", "b.md", { content: "x" })).statusCode).toBe(400);
    const bad = await cas("cas", "../b.md", { baseVersion: 0, content: "x" });
    expect([bad.statusCode, bad.json()]).toEqual([400, { code: "invalid_path", message: "path must not contain '.' or '..' segments", details: { rule: "dot_segment" } }]);
    expect((await cas("cas", "b.md", { baseVersion: 0, content: "x" }, h.tokens.reader)).statusCode).toBe(403);
  });

  it.each([".git/config", "notes/.teammem"])("refuses compare-and-set of %j with invalid_path rule reserved_segment", async (path) => {
    const res = await cas("cas", path, { baseVersion: 0, content: "[core]\n" });
    expect([res.statusCode, res.json()]).toEqual([400, { code: "invalid_path", message: expect.any(String), details: { rule: "reserved_segment" } }]);
  });

  it("serves history newest first, one version's content, and a unified diff between versions", async () => {
    const put = (content: string, baseVersion: number) => cas("hist", "notes.md", { baseVersion, content });
    await put("alpha\nbeta\n", 0);
    await put("alpha\nBETA\ngamma\n", 1);
    const history = (await get("/v1/namespaces/hist/history?path=notes.md")).json();
    expect(history).toEqual({
      path: "notes.md",
      versions: [
        { version: 2, kind: "write", deleted: false, sha256: sha256Hex("alpha\nBETA\ngamma\n"), size: 17, parentVersion: 1, baseVersion: null, author: "ann", clientId: null, opId: null, cursor: 2, createdAt: expect.any(String) },
        { version: 1, kind: "write", deleted: false, sha256: sha256Hex("alpha\nbeta\n"), size: 11, parentVersion: null, baseVersion: null, author: "ann", clientId: null, opId: null, cursor: 1, createdAt: expect.any(String) },
      ],
      conflicts: [],
      server: expect.objectContaining({ epoch: expect.any(String) }),
    });
    const v1 = (await get("/v1/namespaces/hist/version?path=notes.md&version=1")).json();
    expect(v1).toMatchObject({ path: "notes.md", version: 1, content: "alpha\nbeta\n" });
    expect((await get("/v1/namespaces/hist/version?path=notes.md&version=9")).statusCode).toBe(404);
    const diff = (await get("/v1/namespaces/hist/diff?path=notes.md&from=1&to=2")).json();
    expect(diff).toEqual({
      path: "notes.md",
      from: 1,
      to: 2,
      diff: "===================================================================\n--- notes.md@v1\n+++ notes.md@v2\n@@ -1,2 +1,3 @@\n alpha\n-beta\n+BETA\n+gamma\n",
    });
    expect((await get("/v1/namespaces/hist/diff?path=notes.md&from=0&to=1")).json().diff).toContain("+alpha\n+beta\n");
    expect((await get("/v1/namespaces/hist/entry?path=missing.md")).statusCode).toBe(404);
    expect((await get("/v1/namespaces/hist/history?path=missing.md")).statusCode).toBe(404);
  });

  it("restores an old version as a new version, brings back a deleted entry, and replays by opId", async () => {
    await cas("restore", "r.md", { baseVersion: 0, content: "first\n" });
    await cas("restore", "r.md", { baseVersion: 1, content: "second\n" });
    await cas("restore", "r.md", { baseVersion: 2, delete: true });
    const body = { opId: "restore-op-1", path: "r.md", version: 1 };
    const restored = await h.call("POST", "/v1/namespaces/restore/restore", h.tokens.member, body);
    expect([restored.statusCode, restored.json()]).toEqual([
      200,
      { opId: "restore-op-1", path: "r.md", status: "applied", version: 4, sha256: sha256Hex("first\n"), deleted: false, cursor: 4, server: expect.objectContaining({ epoch: expect.any(String) }) },
    ]);
    expect((await h.call("POST", "/v1/namespaces/restore/restore", h.tokens.member, body)).json()).toEqual(restored.json());
    const history = (await get("/v1/namespaces/restore/history?path=r.md")).json();
    expect(history.versions.map((v: { version: number; kind: string }) => `${v.version}:${v.kind}`)).toEqual(["4:restore", "3:delete", "2:write", "1:write"]);
    expect((await get("/v1/namespaces/restore/entry?path=r.md")).json()).toMatchObject({ version: 4, deleted: false, content: "first\n" });
    const missing = await h.call("POST", "/v1/namespaces/restore/restore", h.tokens.member, { opId: "restore-op-2", path: "r.md", version: 42 });
    expect([missing.statusCode, missing.json()]).toEqual([404, { code: "not_found", message: "no version 42 at this path" }]);
    const reused = await h.call("POST", "/v1/namespaces/restore/restore", h.tokens.member, { opId: "restore-op-1", path: "r.md", version: 2 });
    expect([reused.statusCode, reused.json().code]).toEqual([400, "invalid_request"]);
  });

  it("resolves a conflict record with a new version, marks it resolved, and refuses a second resolution", async () => {
    const batch = (operations: unknown[]) => h.call("POST", "/v1/namespaces/resolve/batch", h.tokens.member, { operations });
    await batch([{ opId: opId("c0"), path: "c.md", baseVersion: 0, content: "x\n" }]);
    await batch([{ opId: opId("c1"), path: "c.md", baseVersion: 1, content: "head\n" }]);
    const conflict = (await batch([{ opId: opId("c2"), path: "c.md", baseVersion: 1, content: "mine\n" }])).json().results[0];
    expect(conflict.status).toBe("conflict");
    const url = `/v1/namespaces/resolve/conflicts/${conflict.conflictId}/resolve`;
    const stale = await h.call("POST", url, h.tokens.member, { opId: "resolve-op-0", baseVersion: 1, content: "head\nmine\n" });
    expect([stale.statusCode, stale.json().details]).toEqual([409, { currentVersion: 2 }]);
    const body = { opId: "resolve-op-1", baseVersion: 2, content: "head\nmine\n" };
    const resolved = await h.call("POST", url, h.tokens.member, body);
    expect([resolved.statusCode, resolved.json()]).toEqual([
      200,
      { opId: "resolve-op-1", path: "c.md", status: "applied", version: 3, sha256: sha256Hex("head\nmine\n"), deleted: false, cursor: 4, server: expect.objectContaining({ epoch: expect.any(String) }) },
    ]);
    expect((await h.call("POST", url, h.tokens.member, body)).json()).toEqual(resolved.json());
    const again = await h.call("POST", url, h.tokens.member, { opId: "resolve-op-2", baseVersion: 3, delete: true });
    expect([again.statusCode, again.json()]).toEqual([409, { code: "already_exists", message: "this conflict is already resolved", details: { resolvedVersion: 3 } }]);
    expect((await get("/v1/namespaces/resolve/conflicts")).json()).toEqual({ conflicts: [], server: expect.objectContaining({ epoch: expect.any(String) }) });
    const all = (await get("/v1/namespaces/resolve/conflicts?status=resolved")).json().conflicts;
    expect(all).toEqual([expect.objectContaining({ id: conflict.conflictId, status: "resolved", resolvedVersion: 3, resolvedAt: expect.any(String) })]);
    const history = (await get("/v1/namespaces/resolve/history?path=c.md")).json();
    expect(history.versions[0]).toMatchObject({ version: 3, kind: "resolve" });
    const unknown = await h.call("POST", "/v1/namespaces/resolve/conflicts/00000000-0000-4000-8000-000000000000/resolve", h.tokens.member, { opId: "resolve-op-3", baseVersion: 3, content: "z" });
    expect(unknown.statusCode).toBe(404);
    expect((await h.call("GET", "/v1/namespaces/resolve/conflicts?status=bogus", h.tokens.member)).statusCode).toBe(400);
  });

  it("hides every read and write route of a namespace from another team (404) and forbids writes to readers (403)", async () => {
    await cas("private", "p.md", { baseVersion: 0, content: "ours\n" });
    const routes: [("GET" | "PUT" | "POST"), string, unknown?][] = [
      ["GET", "/v1/namespaces/private/changes"],
      ["GET", "/v1/namespaces/private/entry?path=p.md"],
      ["GET", "/v1/namespaces/private/history?path=p.md"],
      ["GET", "/v1/namespaces/private/version?path=p.md&version=1"],
      ["GET", "/v1/namespaces/private/diff?path=p.md&from=0&to=1"],
      ["GET", "/v1/namespaces/private/conflicts"],
      ["POST", "/v1/namespaces/private/restore", { opId: "xteam-restore", path: "p.md", version: 1 }],
      ["POST", "/v1/namespaces/private/conflicts/00000000-0000-4000-8000-000000000000/resolve", { opId: "xteam-resolve", baseVersion: 1, content: "x" }],
    ];
    for (const [method, url, body] of routes) {
      const res = await h.call(method, url, h.tokens.otherTeam, body);
      expect([url, res.statusCode, res.json()]).toEqual([url, 404, { code: "not_found", message: "no namespace of this name in this team" }]);
    }
    const writes: [("PUT" | "POST"), string, unknown][] = [
      ["PUT", "/v1/namespaces/private/entry?path=p.md", { baseVersion: 1, content: "x" }],
      ["POST", "/v1/namespaces/private/batch", { operations: [{ opId: "reader-op-1", path: "p.md", baseVersion: 1, content: "x" }] }],
      ["POST", "/v1/namespaces/private/restore", { opId: "reader-op-2", path: "p.md", version: 1 }],
      ["POST", "/v1/namespaces/private/block-reports", { path: "p.md", sha256: sha256Hex("x"), findings: [{ ruleId: "r", label: "l", line: 1, column: 1 }] }],
    ];
    for (const [method, url, body] of writes) {
      const res = await h.call(method, url, h.tokens.reader, body);
      expect([url, res.statusCode, res.json().code]).toEqual([url, 403, "forbidden"]);
    }
    expect((await get("/v1/namespaces/private/entry?path=p.md")).json().content).toBe("ours\n");
  });

  it("refuses bad queries and bodies on every read and write route with 400 invalid_request", async () => {
    await cas("bad", "p.md", { baseVersion: 0, content: "x\n" });
    const cases: [("GET" | "PUT" | "POST"), string, unknown?][] = [
      ["GET", "/v1/namespaces/bad/entry"],
      ["GET", "/v1/namespaces/bad/entry?path=p.md&extra=1"],
      ["GET", "/v1/namespaces/bad/history?path="],
      ["GET", "/v1/namespaces/bad/version?path=p.md"],
      ["GET", "/v1/namespaces/bad/version?path=p.md&version=abc"],
      ["GET", "/v1/namespaces/bad/version?path=p.md&version=0"],
      ["GET", "/v1/namespaces/bad/diff?path=p.md&from=1"],
      ["GET", "/v1/namespaces/bad/diff?path=p.md&from=-1&to=1"],
      ["GET", "/v1/namespaces/bad/conflicts?status=open&x=1"],
      ["PUT", "/v1/namespaces/bad/entry", { baseVersion: 1, content: "x" }],
      ["PUT", "/v1/namespaces/bad/entry?path=p.md", { baseVersion: 1, content: ["x"] }],
      ["PUT", "/v1/namespaces/bad/entry?path=p.md", { baseVersion: 1, delete: "yes" }],
      ["POST", "/v1/namespaces/bad/restore", { opId: "restore-bad-1", path: "p.md" }],
      ["POST", "/v1/namespaces/bad/restore", { opId: "restore-bad-1", path: "p.md", version: "1" }],
      ["POST", "/v1/namespaces/bad/restore", { opId: "restore-bad-1", path: "p.md", version: 1, extra: true }],
      ["POST", "/v1/namespaces/bad/conflicts/not-a-uuid/resolve", { opId: "resolve-bad-1", baseVersion: 1, content: "x" }],
      ["POST", "/v1/namespaces/bad/conflicts/00000000-0000-4000-8000-000000000000/resolve", { opId: "resolve-bad-1", baseVersion: 1 }],
      ["POST", "/v1/namespaces/bad/block-reports", { path: "p.md", sha256: "nothex", findings: [{ ruleId: "r", label: "l", line: 1, column: 1 }] }],
      ["POST", "/v1/namespaces/bad/block-reports", { path: "p.md", sha256: sha256Hex("x"), findings: [{ ruleId: "r", label: "l", line: 1, column: 1, secret: "v" }] }],
    ];
    for (const [method, url, body] of cases) {
      const res = await h.call(method, url, h.tokens.member, body);
      expect([method, url, res.statusCode, res.json().code]).toEqual([method, url, 400, "invalid_request"]);
    }
    const badPath = await get("/v1/namespaces/bad/entry?path=a%5Cb");
    expect([badPath.statusCode, badPath.json()]).toEqual([400, { code: "invalid_path", message: "path must use '/' as separator, not '\\'", details: { rule: "backslash" } }]);
  });
});
