/**
 * Paths and opIds reach SQL that the write path sends as one simple-protocol query (values inlined
 * as hex digits): quotes, SQL fragments and non-ASCII text in them must round-trip as plain data.
 */
import { describe, expect, it } from "vitest";
import type { OperationResult } from "@teammem/protocol";
import { DATABASE_KINDS } from "../../src/testing.js";
import { useHarness } from "./harness.js";

const HOSTILE_PATHS = [
  "it's'; DROP TABLE entries; --.md",
  // No double quote or |: Windows refuses them in names, so new names may not hold them (9640f32).
  "quote`and'.md",
  "日本語/メモ's.md",
  "emoji 🎉/$$dollar$$.md",
  "e' OR '1'='1 (SELECT 1).md",
];

describe.each(DATABASE_KINDS)("hostile keys on %s", (kind) => {
  const h = useHarness(kind);

  const batch = async (operations: unknown[]): Promise<OperationResult[]> => {
    const res = await h.call("POST", "/v1/namespaces/hostile/batch", h.tokens.member, { operations });
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as { results: OperationResult[] }).results;
  };

  it("stores, updates, replays and lists paths holding quotes and SQL as plain data (opIds are limited to [A-Za-z0-9._:-] by the protocol)", async () => {
    for (const [i, path] of HOSTILE_PATHS.entries()) {
      const opId = `op-hostile-${i}`;
      const [created] = await batch([{ opId, path, baseVersion: 0, content: `v1 ${path}\n` }]);
      expect(created).toMatchObject({ status: "applied", path, version: 1 });
      const [replayed] = await batch([{ opId, path, baseVersion: 0, content: `v1 ${path}\n` }]);
      expect(replayed).toEqual(created);
      const [updated] = await batch([{ opId: `${opId}u`, path, baseVersion: 1, content: `v2 ${path}\n` }]);
      expect(updated).toMatchObject({ status: "applied", version: 2 });
    }
    const changes = await h.call("GET", "/v1/namespaces/hostile/changes?since=0&limit=100", h.tokens.member);
    const paths = (changes.json() as { changes: { path: string; content: string }[] }).changes.map((c) => [c.path, c.content]);
    expect(paths).toEqual(HOSTILE_PATHS.map((p) => [p, `v2 ${p}\n`]));
  });
});
