import { describe, expect, it } from "vitest";
import { fakeGithubPat } from "@teammem/scanner/testing";
import { DATABASE_KINDS } from "../../src/testing.js";
import { auditEvents, conflicts, entries, operations, versions } from "../../src/db/schema.js";
import { opId, useHarness } from "./harness.js";

const LIMITS = { maxEntryBytes: 100, maxEntriesPerNamespace: 3, maxOperationsPerBatch: 5, maxBodyBytes: 4096 };

describe.each(DATABASE_KINDS)("write validation and limits on %s", (kind) => {
  const h = useHarness(kind, LIMITS);
  const post = (ns: string, body: unknown, token = h.tokens.member) => h.call("POST", `/v1/namespaces/${ns}/batch`, token, body);
  const one = async (ns: string, op: Record<string, unknown>) => {
    const res = await post(ns, { operations: [op] });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().results[0];
  };

  it.each([
    ["../x", "dot_segment"],
    ["a/../x", "dot_segment"],
    ["/abs", "absolute"],
    ["C:/x", "absolute"],
    ["a\\b", "backslash"],
    ["a\u0000b", "control_character"],
    ["a\u0007b", "control_character"],
    ["a//b", "empty_segment"],
    ["dir/", "trailing_slash"],
    [`${"s".repeat(256)}/x`, "segment_too_long"],
    [`${"é".repeat(128)}/x`, "segment_too_long"],
    [Array.from({ length: 9 }, () => "d".repeat(120)).join("/"), "path_too_long"],
    [".git/config", "reserved_segment"],
    ["notes/.teammem", "reserved_segment"],
    ["team/.teammem-tmp-1234/a.md", "reserved_segment"],
  ])("rejects path %j with invalid_path rule %s", async (path, rule) => {
    const id = opId("path");
    const res = await one("paths", { opId: id, path, baseVersion: 0, content: "x" });
    expect(res).toEqual({ opId: id, path, status: "rejected", code: "invalid_path", message: expect.any(String), details: { rule } });
  });

  it("refuses a second path differing only by case with path_case_conflict, and accepts it once the first is deleted", async () => {
    await one("case", { opId: opId("c1"), path: "Notes.md", baseVersion: 0, content: "x" });
    const clash = await one("case", { opId: "case-clash-1", path: "notes.md", baseVersion: 0, content: "y" });
    expect(clash).toEqual({
      opId: "case-clash-1",
      path: "notes.md",
      status: "rejected",
      code: "path_case_conflict",
      message: "another path differing only by case exists in this namespace",
      details: { path: "Notes.md" },
    });
    await one("case", { opId: opId("c2"), path: "Notes.md", baseVersion: 1, delete: true });
    // a transient refusal is not stored: the same operation passes now
    expect(await one("case", { opId: "case-clash-1", path: "notes.md", baseVersion: 0, content: "y" })).toMatchObject({ status: "applied", version: 1 });
  });

  it("normalises paths to NFC, so NFD and NFC spellings are the same entry", async () => {
    await one("nfc", { opId: opId("n1"), path: "cafe\u0301.md", baseVersion: 0, content: "1" });
    expect(await one("nfc", { opId: opId("n2"), path: "caf\u00e9.md", baseVersion: 1, content: "2" })).toMatchObject({ status: "applied", path: "caf\u00e9.md", version: 2 });
  });

  it("rejects content over maxEntryBytes (UTF-8 bytes) with entry_too_large naming limit and value", async () => {
    const content = "é".repeat(51); // 102 bytes
    expect(await one("size", { opId: "too-large-1", path: "big.md", baseVersion: 0, content })).toEqual({
      opId: "too-large-1",
      path: "big.md",
      status: "rejected",
      code: "entry_too_large",
      message: "content is 102 UTF-8 bytes, the limit is 100",
      details: { limit: 100, value: 102 },
    });
  });

  it("rejects content with a lone surrogate with invalid_utf8", async () => {
    expect(await one("size", { opId: "bad-utf8-1", path: "u.md", baseVersion: 0, content: "a\ud800b" })).toMatchObject({ status: "rejected", code: "invalid_utf8", details: { field: "content" } });
  });

  it("rejects only the operations whose path or renameFrom holds a lone surrogate (invalid_utf8 naming the field, not retryable), applies the others and stores nothing of them", async () => {
    const ops = [
      { opId: "lone-path-1", path: "team/a\ud800.md", baseVersion: 0, content: "x" },
      { opId: "lone-ok-1", path: "team/ok.md", baseVersion: 0, content: "fine" },
      { opId: "lone-low-1", path: "team/\udc00b.md", baseVersion: 0, delete: true },
      { opId: "lone-rename-1", path: "team/new.md", baseVersion: 0, content: "x", renameFrom: "team/old\udbff.md", renameFromVersion: 1 },
    ];
    for (const attempt of [1, 2]) {
      const res = await post("lone", { operations: ops });
      expect(res.statusCode, res.body).toBe(200);
      const results = res.json().results;
      expect(results.map((r: { status: string; code?: string; details?: unknown }) => [r.status, r.code, r.details])).toEqual([
        ["rejected", "invalid_utf8", { field: "path" }],
        ["applied", undefined, undefined],
        ["rejected", "invalid_utf8", { field: "path" }],
        ["rejected", "invalid_utf8", { field: "renameFrom" }],
      ]);
      expect(results[0]).toMatchObject({ opId: "lone-path-1", path: "team/a\ud800.md", message: expect.stringMatching(/^path is not valid Unicode text/) });
      expect(attempt === 1 || results[1].version === 1).toBe(true);
    }
    const stored = (await h.db.select().from(operations)).map((o) => o.opId);
    expect(stored).toContain("lone-ok-1");
    expect(stored.filter((id) => id.startsWith("lone-") && id !== "lone-ok-1")).toEqual([]);
    expect((await h.db.select().from(entries)).filter((e) => e.path.startsWith("team/") && /\ufffd|old|new/.test(e.path))).toEqual([]);
  });

  it("refuses a lone surrogate outside the operations (clientId, a key) with 400 invalid_utf8 naming the field, storing nothing", async () => {
    const op = { opId: "lone-client-1", path: "team/c.md", baseVersion: 0, content: "x" };
    for (const [body, field] of [
      [{ clientId: "laptop\ud800", operations: [op] }, "body/clientId"],
      [{ operations: [op], ["x\udc00"]: 1 }, "body/(an unknown key)"], // a made-up key is never quoted (try14 F16)
    ] as const) {
      const res = await post("lone2", body);
      expect([res.statusCode, res.json()]).toEqual([400, { code: "invalid_utf8", message: expect.stringMatching(new RegExp(`^${field.replace(/[/()]/g, "\\$&")} is not valid Unicode text`)), details: { field } }]);
    }
    expect((await h.call("GET", "/v1/namespaces/lone2/changes", h.tokens.member)).statusCode).toBe(404);
  });

  it("rejects content with a NUL character with invalid_request", async () => {
    expect(await one("size", { opId: "nul-content-1", path: "n.md", baseVersion: 0, content: "a\u0000b" })).toEqual({
      opId: "nul-content-1",
      path: "n.md",
      status: "rejected",
      code: "invalid_request",
      message: "content must be text without NUL characters",
      details: { reason: "nul_character" },
    });
  });

  it("rejects a new live entry beyond maxEntriesPerNamespace with namespace_full", async () => {
    const results = (
      await post("full", {
        operations: ["a", "b", "c", "d"].map((n) => ({ opId: `full-op-${n}`, path: `${n}.md`, baseVersion: 0, content: n })),
      })
    ).json().results;
    expect(results.map((r: { status: string }) => r.status)).toEqual(["applied", "applied", "applied", "rejected"]);
    expect(results[3]).toEqual({
      opId: "full-op-d",
      path: "d.md",
      status: "rejected",
      code: "namespace_full",
      message: "the namespace holds 3 entries, the limit is 3",
      details: { limit: 3, value: 3 },
    });
    // editing an existing entry still works
    expect(await one("full", { opId: opId("edit"), path: "a.md", baseVersion: 1, content: "a2" })).toMatchObject({ status: "applied", version: 2 });
  });

  it("refuses a batch with more than maxOperationsPerBatch operations with 413 batch_too_large", async () => {
    const operations = Array.from({ length: 6 }, (_, i) => ({ opId: `many-op-${i}`, path: `m${i}.md`, baseVersion: 0, content: "x" }));
    const res = await post("many", { operations });
    expect([res.statusCode, res.json()]).toEqual([413, { code: "batch_too_large", message: "a batch may hold at most 5 operations, this one has 6", details: { limit: 5, value: 6 } }]);
    expect((await h.call("GET", "/v1/namespaces/many/changes", h.tokens.member)).statusCode).toBe(404);
  });

  it.each([
    ["no operations", { operations: [] }],
    ["missing operations", {}],
    ["operations not an array", { operations: "x" }],
    ["unknown top-level field", { operations: [{ opId: "abcdefgh", path: "a", baseVersion: 0, content: "x" }], extra: 1 }],
    ["unknown operation field", { operations: [{ opId: "abcdefgh", path: "a", baseVersion: 0, content: "x", mtime: 5 }] }],
    ["content and delete", { operations: [{ opId: "abcdefgh", path: "a", baseVersion: 0, content: "x", delete: true }] }],
    ["missing baseVersion", { operations: [{ opId: "abcdefgh", path: "a", content: "x" }] }],
    ["string baseVersion", { operations: [{ opId: "abcdefgh", path: "a", baseVersion: "0", content: "x" }] }],
    ["negative baseVersion", { operations: [{ opId: "abcdefgh", path: "a", baseVersion: -1, content: "x" }] }],
    ["numeric content", { operations: [{ opId: "abcdefgh", path: "a", baseVersion: 0, content: 5 }] }],
    ["short opId", { operations: [{ opId: "abc", path: "a", baseVersion: 0, content: "x" }] }],
    ["delete: false", { operations: [{ opId: "abcdefgh", path: "a", baseVersion: 0, delete: false }] }],
  ])("refuses a malformed body (%s) with 400 invalid_request and stores nothing", async (_name, body) => {
    const res = await post("malformed", body);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ code: "invalid_request", message: expect.stringMatching(/^invalid request: /) });
  });

  it("refuses a body over maxBodyBytes with 413 body_too_large naming the limit", async () => {
    const res = await post("huge", { operations: [{ opId: "huge-op-1", path: "h.md", baseVersion: 0, content: "x".repeat(5000) }] });
    expect([res.statusCode, res.json()]).toEqual([413, { code: "body_too_large", message: "the request body exceeds 4096 bytes", details: { limit: 4096 } }]);
  });

  it("refuses a body that is not JSON, or not UTF-8", async () => {
    const raw = (payload: string | Buffer) =>
      h.app.inject({ method: "POST", url: "/v1/namespaces/malformed/batch", headers: { authorization: `Bearer ${h.tokens.member}`, "content-type": "application/json" }, payload });
    expect((await raw("{not json")).json().code).toBe("invalid_request");
    expect((await raw(Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d]))).json().code).toBe("invalid_utf8");
    expect((await h.call("GET", "/v1/namespaces", h.tokens.member)).json().namespaces.map((n: { name: string }) => n.name)).not.toContain("malformed");
  });

  it("refuses content holding a credential with secret_detected, stores none of it, and audits the rejection", async () => {
    const token = fakeGithubPat(4242);
    const content = `# build notes\nexport GITHUB_TOKEN=${token}\n`;
    const res = await one("secrets", { opId: "secret-op-1", path: "team/leak.md", baseVersion: 0, content });
    expect(res).toEqual({
      opId: "secret-op-1",
      path: "team/leak.md",
      status: "rejected",
      code: "secret_detected",
      message: expect.stringContaining("github-pat"),
      findings: [{ ruleId: "github-pat", label: expect.any(String), line: 2, column: 21 }],
    });
    // replay: same result, no second audit event
    expect(await one("secrets", { opId: "secret-op-1", path: "team/leak.md", baseVersion: 0, content })).toEqual(res);
    // compare-and-set route refuses it too, with the findings in the error body
    const cas = await h.call("PUT", "/v1/namespaces/secrets/entry?path=team/leak.md", h.tokens.member, { baseVersion: 0, content });
    expect([cas.statusCode, cas.json()]).toEqual([
      422,
      { code: "secret_detected", message: expect.any(String), findings: [{ ruleId: "github-pat", label: expect.any(String), line: 2, column: 21 }] },
    ]);

    const everything = JSON.stringify([
      await h.db.select().from(versions),
      await h.db.select().from(entries),
      await h.db.select().from(conflicts),
      await h.db.select().from(operations),
      await h.db.select().from(auditEvents),
    ]);
    expect(everything).not.toContain(token);
    expect(everything).not.toContain(token.slice(4, 20));
    const audit = await h.db.select().from(auditEvents);
    const rejected = audit.filter((e) => e.kind === "upload_rejected");
    expect(rejected).toHaveLength(2);
    expect(rejected[0]).toMatchObject({
      kind: "upload_rejected",
      namespace: "secrets",
      path: "team/leak.md",
      code: "secret_detected",
      actorName: "ann",
      findings: [{ ruleId: "github-pat", label: expect.any(String), line: 2, column: 21, fingerprint: expect.stringMatching(/^[0-9a-f]+$/) }],
    });
  });
});
