/**
 * A batch's operations share one transaction where they can (store/apply-batch.ts); the results,
 * cursors and stored state must be exactly those of one transaction per operation. Each scenario
 * runs the same batches in two namespaces: as multi-operation batches in one, one operation per
 * request in the other (the per-operation path), and compares results and change feeds.
 */
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { OperationResult } from "@teammem/protocol";
import { fakeGithubPat } from "@teammem/scanner/testing";
import { rowsOf } from "../../src/db/database.js";
import { DATABASE_KINDS } from "../../src/testing.js";
import { useHarness, type Harness } from "./harness.js";

type Op = Record<string, unknown>;
const put = (id: string, path: string, baseVersion: number, content: string): Op => ({ opId: `op-id-${id}`, path, baseVersion, content });
const del = (id: string, path: string, baseVersion: number): Op => ({ opId: `op-id-${id}`, path, baseVersion, delete: true });

/** Results without what differs between two namespaces by nature (conflict record ids). */
function comparable(results: OperationResult[]): unknown[] {
  return results.map((r) => ("conflictId" in r ? { ...r, conflictId: "<id>" } : r));
}

/** Runs `batches` in `batched` as batches and in `single` one operation a request; expects the same results and feeds. */
async function compare(h: Harness, batched: string, single: string, batches: Op[][]): Promise<OperationResult[][]> {
  const all: OperationResult[][] = [];
  for (const ops of batches) {
    const together = await h.batch(batched, ops, { clientId: "laptop-1" });
    const alone: OperationResult[] = [];
    for (const op of ops) alone.push(...(await h.batch(single, [op], { clientId: "laptop-1" })));
    expect(comparable(together)).toEqual(comparable(alone));
    all.push(together);
  }
  const feed = async (ns: string) => {
    const body = (await h.call("GET", `/v1/namespaces/${ns}/changes?since=0`, h.tokens.member)).json() as { changes: Record<string, unknown>[]; nextCursor: number };
    return { nextCursor: body.nextCursor, changes: body.changes.map(({ createdAt: _createdAt, ...c }) => c) };
  };
  expect(await feed(batched)).toEqual(await feed(single));
  return all;
}

describe.each(DATABASE_KINDS)("set-based batches on %s", (kind) => {
  const h = useHarness(kind);
  const small = useHarness(kind, { maxEntriesPerNamespace: 3 });

  it("gives every kind of operation the result, cursor and state of one transaction per operation", async () => {
    const lines = "one\ntwo\nthree\nfour\nfive\n";
    const setup = [
      put("s-a", "a.md", 0, lines),
      put("s-b", "b.md", 0, "b\n"),
      put("s-x", "notes/x.md", 0, "x\n"),
      put("s-readme", "README.md", 0, "read me\n"),
      put("s-gone", "gone.md", 0, "gone\n"),
      put("s-f", "f.md", 0, lines),
      put("s-g", "g.md", 0, lines),
    ];
    const mixed = [
      put("m-a", "a.md", 1, lines.replace("one", "ONE")), // fast-forward
      put("s-a", "a.md", 0, lines), // replay: the stored result
      put("s-b", "b.md", 0, "reused\n"), // op id reused for another request
      put("m-b-ahead", "b.md", 5, "b2\n"), // base ahead: version_conflict
      put("m-b-same", "b.md", 1, "b\n"), // the head's content: nothing new
      del("m-gone", "gone.md", 1), // a tombstone
      del("m-missing", "missing.md", 0), // nothing to delete
      put("m-notes", "notes", 0, "file\n"), // a file where a folder lives: path_type_conflict (ends the run)
      put("m-c", "c.md", 0, "c\n"),
      put("m-readme", "readme.md", 0, "case\n"), // case clash with README.md
      put("m-dir", "dir", 0, "dir\n"),
      put("m-dir-a", "dir/a.md", 0, "below a file made live in the same run\n"),
      put("m-bad", "../up.md", 0, "x\n"), // invalid path
      put("m-secret", "secret.md", 0, `token ${fakeGithubPat()}\n`), // the re-scan refuses it
      put("m-a-merge", "a.md", 1, lines.replace("five", "FIVE")), // a.md again: merged with the edit above
      put("m-f-1", "f.md", 1, lines.replace("two", "TWO")),
      put("m-f-clash", "f.md", 1, lines.replace("two", "deux")), // conflict
      put("m-g-edit", "g.md", 1, lines.replace("three", "THREE")),
      del("m-g-del", "g.md", 1), // a delete of an edited entry: conflict
      put("m-gone-back", "gone.md", 1, "back\n"), // an edit against the delete above: the edit wins
      put("m-h", "h.md", 0, "h\n"),
      put("m-i", "i.md", 0, "i\n"),
    ];
    const [, results] = await compare(h, "sb-batched", "sb-single", [setup, mixed, mixed]);
    const byOp = new Map(results!.map((r) => [r.opId, r]));
    expect(byOp.get("op-id-m-a")).toMatchObject({ status: "applied", version: 2 });
    expect(byOp.get("op-id-s-b")).toMatchObject({ status: "rejected", code: "invalid_request" });
    expect(byOp.get("op-id-m-b-ahead")).toMatchObject({ status: "rejected", code: "version_conflict" });
    expect(byOp.get("op-id-m-b-same")).toMatchObject({ status: "applied", version: 1 });
    expect(byOp.get("op-id-m-notes")).toMatchObject({ status: "rejected", code: "path_type_conflict" });
    expect(byOp.get("op-id-m-readme")).toMatchObject({ status: "rejected", code: "path_case_conflict" });
    expect(byOp.get("op-id-m-dir-a")).toMatchObject({ status: "rejected", code: "path_type_conflict" });
    expect(byOp.get("op-id-m-bad")).toMatchObject({ status: "rejected", code: "invalid_path" });
    expect(byOp.get("op-id-m-secret")).toMatchObject({ status: "rejected", code: "secret_detected" });
    expect(byOp.get("op-id-m-a-merge")).toMatchObject({ status: "merged", version: 3 });
    expect(byOp.get("op-id-m-f-clash")).toMatchObject({ status: "conflict" });
    expect(byOp.get("op-id-m-g-del")).toMatchObject({ status: "conflict" });
    expect(byOp.get("op-id-m-gone-back")).toMatchObject({ status: "merged" });
    expect(byOp.get("op-id-m-i")).toMatchObject({ status: "applied", version: 1 });
  });

  it("keeps the namespace limit inside one batch, a delete of the batch freeing a place for the next new path", async () => {
    const batches = [
      [put("l-1", "1.md", 0, "1\n"), put("l-2", "2.md", 0, "2\n"), put("l-3", "3.md", 0, "3\n"), put("l-4", "4.md", 0, "4\n"), put("l-5", "5.md", 0, "5\n")],
      [put("l-1e", "1.md", 1, "one\n"), del("l-2d", "2.md", 1), put("l-4b", "4.md", 0, "4\n"), put("l-5b", "5.md", 0, "5\n"), put("l-4", "4.md", 0, "4\n")],
    ];
    const [first, second] = await compare(small, "lim-batched", "lim-single", batches);
    expect(first!.map((r) => (r.status === "rejected" ? r.code : r.status))).toEqual(["applied", "applied", "applied", "namespace_full", "namespace_full"]);
    // 4.md's first operation was refused for room, not stored: sent again it finds 4.md live with its content.
    expect(second!.map((r) => (r.status === "rejected" ? r.code : r.status))).toEqual(["applied", "applied", "applied", "namespace_full", "applied"]);
  });

  it("stores every result of a batch for replay and writes nothing twice", async () => {
    const ops = Array.from({ length: 50 }, (_, i) => put(`r-${i}`, `r/${i}.md`, 0, `${i}\n`));
    const first = await h.batch("sb-replay", ops);
    expect(first.every((r) => r.status === "applied")).toBe(true);
    expect(first.map((r) => (r as { cursor: number }).cursor)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(await h.batch("sb-replay", ops)).toEqual(first);
    const feed = (await h.call("GET", "/v1/namespaces/sb-replay/changes?since=0", h.tokens.member)).json() as { nextCursor: number; changes: unknown[] };
    expect(feed.nextCursor).toBe(50);
    expect(feed.changes).toHaveLength(50);
  });

  it("writes a run of new paths and a run of edits each in one transaction (set-based, not one transaction per operation)", async () => {
    // A failed run falls back to one transaction per operation with the same results, so only the
    // writing transactions tell the set-based path ran: every version of a run has the same xmin.
    const created = await h.batch("sb-one-tx", Array.from({ length: 20 }, (_, i) => put(`t-${i}`, `t/${i}.md`, 0, `${i}\n`)));
    expect(created.map((r) => r.status)).toEqual(created.map(() => "applied"));
    const edited = await h.batch("sb-one-tx", Array.from({ length: 20 }, (_, i) => put(`t-e-${i}`, `t/${i}.md`, 1, `edited ${i}\n`)));
    expect(edited.map((r) => (r.status === "applied" ? r.version : r.status))).toEqual(edited.map(() => 2));
    const byVersion = rowsOf<{ version: number; transactions: number | string; rows: number | string }>(
      await h.db.execute(sql`
        SELECT v.version, count(DISTINCT v.xmin::text) AS transactions, count(*) AS rows
        FROM versions v JOIN namespaces n ON n.id = v.namespace_id WHERE n.name = 'sb-one-tx' GROUP BY v.version ORDER BY v.version`),
    ).map((r) => ({ version: r.version, transactions: Number(r.transactions), rows: Number(r.rows) }));
    expect(byVersion).toEqual([
      { version: 1, transactions: 1, rows: 20 },
      { version: 2, transactions: 1, rows: 20 },
    ]);
    const heads = rowsOf<{ edited: number | string; transactions: number | string }>(
      await h.db.execute(sql`
        SELECT count(*) FILTER (WHERE e.content = 'edited ' || split_part(split_part(e.path, '/', 2), '.', 1) || chr(10)) AS edited, count(DISTINCT e.xmin::text) AS transactions
        FROM entries e JOIN namespaces n ON n.id = e.namespace_id WHERE n.name = 'sb-one-tx' AND e.version = 2`),
    );
    expect(heads.map((r) => ({ edited: Number(r.edited), transactions: Number(r.transactions) }))).toEqual([{ edited: 20, transactions: 1 }]);
  });
});
