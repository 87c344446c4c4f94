/**
 * Issue 12: retention of the idempotency table. Stored operation results older than
 * TEAMMEM_OPERATION_RETENTION_DAYS are deleted by the hourly job; an operation replayed after that
 * (an outbox kept offline for longer) is decided again, and a change already in the path's history
 * since its base is answered with the head, never applied a second time.
 */
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { namespaces, operations } from "../../src/db/schema.js";
import { DATABASE_KINDS } from "../../src/testing.js";
import { createHarness, opId, type Harness } from "./harness.js";

describe.each(DATABASE_KINDS)("operation retention on %s", (kind) => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness(kind);
  });
  afterAll(async () => {
    await h?.close();
  });

  const batch = async (ns: string, op: Record<string, unknown>, token = h.tokens.member) => {
    const res = await h.call("POST", `/v1/namespaces/${ns}/batch`, token, { operations: [op] });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().results[0];
  };
  const storedIds = async (ns: string) => {
    const [row] = await h.db.select({ id: namespaces.id }).from(namespaces).where(eq(namespaces.name, ns));
    return (await h.db.select({ opId: operations.opId }).from(operations).where(eq(operations.namespaceId, row!.id))).map((r) => r.opId).sort();
  };
  /** Makes every stored result of `ns` `days` days old. */
  const age = async (ns: string, days: number) => {
    const [row] = await h.db.select({ id: namespaces.id }).from(namespaces).where(eq(namespaces.name, ns));
    await h.db.execute(sql`UPDATE operations SET created_at = now() - make_interval(days => ${days}) WHERE namespace_id = ${row!.id}`);
  };
  const history = async (ns: string, path: string) =>
    (await h.call("GET", `/v1/namespaces/${ns}/history?path=${encodeURIComponent(path)}`, h.tokens.member)).json().versions.map((v: { version: number }) => v.version);

  it("deletes the stored results older than the retention (90 days by default) and keeps the newer ones", async () => {
    await batch("keep", { opId: "old-op-1", path: "a.md", baseVersion: 0, content: "a\n" });
    await age("keep", 91);
    await batch("keep", { opId: "new-op-1", path: "b.md", baseVersion: 0, content: "b\n" });
    await batch("keep", { opId: "new-op-2", path: "c.md", baseVersion: 0, content: "c\n" });
    expect(await storedIds("keep")).toEqual(["new-op-1", "new-op-2", "old-op-1"]);
    expect(await h.app.operationRetention.run()).toBe(1);
    expect(await storedIds("keep")).toEqual(["new-op-1", "new-op-2"]);
    expect(await h.app.operationRetention.run()).toBe(0);
  });

  // PGlite runs in this process and reads its clock: there the database's clock is the server's.
  it.skipIf(kind === "pglite")("goes by the database's clock: a server whose clock is 400 days ahead deletes nothing that is not due (try15 F8)", async () => {
    await batch("skew", { opId: "skew-op-1", path: "a.md", baseVersion: 0, content: "a\n" });
    await batch("skew", { opId: "skew-op-2", path: "b.md", baseVersion: 0, content: "b\n" });
    await age("skew", 89);
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 400 * 86_400_000 });
    try {
      await h.app.operationRetention.run();
    } finally {
      vi.useRealTimers();
    }
    expect(await storedIds("skew")).toEqual(["skew-op-1", "skew-op-2"]);
  });

  it("answers a replayed edit with the head when its result was pruned and teammates edited since: nothing is re-applied", async () => {
    await batch("edit", { path: "notes.md", baseVersion: 0, content: "a\n", opId: opId("w") });
    const edit = { opId: "edit-op-1", path: "notes.md", baseVersion: 1, content: "a\nX\n" };
    expect(await batch("edit", edit)).toMatchObject({ status: "applied", version: 2 });
    // A teammate removes the line again.
    expect(await batch("edit", { opId: opId("w"), path: "notes.md", baseVersion: 2, content: "a\n" }, h.tokens.member2)).toMatchObject({ version: 3 });
    await age("edit", 91);
    expect(await h.app.operationRetention.run()).toBeGreaterThan(0);
    // Replayed from an old outbox (same opId, same request): a three-way merge would add the line back.
    expect(await batch("edit", edit)).toMatchObject({ opId: "edit-op-1", status: "merged", version: 3, content: "a\n", headAuthor: "bob" });
    expect(await history("edit", "notes.md")).toEqual([3, 2, 1]);
  });

  it("answers a replayed delete with the head when the path was deleted and created again since", async () => {
    await batch("del", { path: "b.md", baseVersion: 0, content: "b\n", opId: opId("w") });
    const del = { opId: "del-op-1", path: "b.md", baseVersion: 1, delete: true };
    expect(await batch("del", del)).toMatchObject({ status: "applied", version: 2 });
    expect(await batch("del", { opId: opId("w"), path: "b.md", baseVersion: 2, content: "b\n" }, h.tokens.member2)).toMatchObject({ version: 3 });
    await age("del", 91);
    await h.app.operationRetention.run();
    expect(await batch("del", del)).toMatchObject({ opId: "del-op-1", status: "merged", version: 3, content: "b\n" });
    expect(await history("del", "b.md")).toEqual([3, 2, 1]);
  });

  it("answers a replayed write of the head's content as applied at the head version", async () => {
    const put = { opId: "same-op-1", path: "c.md", baseVersion: 0, content: "c\n" };
    const first = await batch("same", put);
    await age("same", 91);
    await h.app.operationRetention.run();
    expect(await storedIds("same")).toEqual([]);
    expect(await batch("same", put)).toEqual(first);
    expect(await history("same", "c.md")).toEqual([1]);
  });
});
