/**
 * Issue 12: the entry limit is checked against the namespace's live-entry counter
 * (`namespaces.live_entries`, kept by every head write) instead of a count of the entries. It must
 * stay exact through every kind of write: creates, deletes (tombstones), re-creates, renames,
 * restores, compare-and-set writes and purges.
 */
import { and, count, eq, not } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { entries, namespaces } from "../../src/db/schema.js";
import { DATABASE_KINDS } from "../../src/testing.js";
import { createHarness, opId, type Harness } from "./harness.js";

describe.each(DATABASE_KINDS)("the entry limit on %s", (kind) => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness(kind, { maxEntriesPerNamespace: 3 });
  });
  afterAll(async () => {
    await h?.close();
  });

  const ns = "limit";
  const one = async (op: Record<string, unknown>) => {
    const res = await h.call("POST", `/v1/namespaces/${ns}/batch`, h.tokens.member, { operations: [{ opId: opId("op"), ...op }] });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().results[0] as { status: string; code?: string; version?: number; details?: unknown };
  };
  const put = (path: string, baseVersion: number, content: string) => one({ path, baseVersion, content });
  const del = (path: string, baseVersion: number) => one({ path, baseVersion, delete: true });
  const full = { status: "rejected", code: "namespace_full", details: { limit: 3, value: 3 } };
  /** The counter, and the live entries counted. */
  const counts = async () => {
    const [counter] = await h.db.select({ n: namespaces.liveEntries, id: namespaces.id }).from(namespaces).where(eq(namespaces.name, ns));
    const [live] = await h.db.select({ n: count() }).from(entries).where(and(eq(entries.namespaceId, counter!.id), not(entries.deleted)));
    return { counter: counter!.n, live: live!.n };
  };

  it("refuses the fourth live entry, and frees a place by a delete, a rename or a purge, never by an edit", async () => {
    expect(await put("a.md", 0, "a\n")).toMatchObject({ status: "applied" });
    expect(await put("b.md", 0, "b\n")).toMatchObject({ status: "applied" });
    expect(await put("c.md", 0, "c\n")).toMatchObject({ status: "applied" });
    expect(await counts()).toEqual({ counter: 3, live: 3 });
    expect(await put("d.md", 0, "d\n")).toMatchObject(full);
    // Edits, identical writes and deletes of missing paths do not move the counter.
    expect(await put("a.md", 1, "a2\n")).toMatchObject({ status: "applied", version: 2 });
    expect(await put("a.md", 2, "a2\n")).toMatchObject({ status: "applied", version: 2 });
    expect(await del("nothing.md", 0)).toMatchObject({ status: "rejected", code: "not_found" }); // nothing to delete (try17 L9), and no count moves
    expect(await counts()).toEqual({ counter: 3, live: 3 });
    expect(await put("d.md", 0, "d\n")).toMatchObject(full);

    // A delete frees a place; a re-create of the deleted path takes it back.
    expect(await del("a.md", 2)).toMatchObject({ status: "applied", version: 3 });
    expect(await counts()).toEqual({ counter: 2, live: 2 });
    expect(await del("a.md", 3)).toMatchObject({ status: "applied", version: 3 }); // already a tombstone
    expect(await counts()).toEqual({ counter: 2, live: 2 });
    expect(await put("a.md", 3, "back\n")).toMatchObject({ status: "applied", version: 4 });
    expect(await counts()).toEqual({ counter: 3, live: 3 });
    expect(await put("d.md", 0, "d\n")).toMatchObject(full);

    // A rename at the limit: the old path's tombstone frees the place the new path takes.
    expect(await one({ path: "moved/b.md", baseVersion: 0, content: "b\n", renameFrom: "b.md", renameFromVersion: 1 })).toMatchObject({ status: "applied" });
    expect(await counts()).toEqual({ counter: 3, live: 3 });
    expect(await put("d.md", 0, "d\n")).toMatchObject(full);

    // A compare-and-set write of a new path, and a restore of a deleted one, are refused when full.
    const cas = await h.call("PUT", `/v1/namespaces/${ns}/entry?path=e.md`, h.tokens.member, { baseVersion: 0, content: "e\n" });
    expect([cas.statusCode, cas.json().code]).toEqual([422, "namespace_full"]);
    expect(await del("c.md", 1)).toMatchObject({ status: "applied", version: 2 });
    expect(await put("d.md", 0, "d\n")).toMatchObject({ status: "applied", version: 1 });
    const restore = await h.call("POST", `/v1/namespaces/${ns}/restore`, h.tokens.member, { opId: opId("restore"), path: "c.md", version: 1 });
    expect([restore.statusCode, restore.json().code]).toEqual([422, "namespace_full"]);
    expect(await counts()).toEqual({ counter: 3, live: 3 });

    // A purge of a head makes it a tombstone: a place is free; the restore passes now.
    const purged = await h.call("POST", `/v1/admin/namespaces/${ns}/purge`, h.tokens.admin, { path: "d.md", version: 1, reason: "test" });
    expect(purged.statusCode, purged.body).toBe(200);
    expect(await counts()).toEqual({ counter: 2, live: 2 });
    const restored = await h.call("POST", `/v1/namespaces/${ns}/restore`, h.tokens.member, { opId: opId("restore"), path: "c.md", version: 1 });
    expect(restored.statusCode, restored.body).toBe(200);
    expect(await counts()).toEqual({ counter: 3, live: 3 });
    expect(await put("f.md", 0, "f\n")).toMatchObject(full);
  });

  it("counts a merge that brings back a deleted path (an edit from before the delete wins)", async () => {
    const other = "limit-merge";
    const call = async (op: Record<string, unknown>) =>
      (await h.call("POST", `/v1/namespaces/${other}/batch`, h.tokens.member, { operations: [{ opId: opId("op"), ...op }] })).json().results[0];
    expect(await call({ path: "x.md", baseVersion: 0, content: "x\n" })).toMatchObject({ status: "applied" });
    expect(await call({ path: "x.md", baseVersion: 1, delete: true })).toMatchObject({ status: "applied", version: 2 });
    expect(await call({ path: "y.md", baseVersion: 0, content: "y\n" })).toMatchObject({ status: "applied" });
    expect(await call({ path: "z.md", baseVersion: 0, content: "z\n" })).toMatchObject({ status: "applied" });
    expect(await call({ path: "w.md", baseVersion: 0, content: "w\n" })).toMatchObject({ status: "applied" });
    // Full (y, z, w): the edit of x from version 1 would make it live again: refused.
    expect(await call({ path: "x.md", baseVersion: 1, content: "x edited\n" })).toMatchObject({ status: "rejected", code: "namespace_full" });
    expect(await call({ path: "w.md", baseVersion: 1, delete: true })).toMatchObject({ status: "applied" });
    expect(await call({ path: "x.md", baseVersion: 1, content: "x edited\n" })).toMatchObject({ status: "merged", version: 3 });
    const [row] = await h.db.select({ n: namespaces.liveEntries }).from(namespaces).where(eq(namespaces.name, other));
    expect(row!.n).toBe(3);
  });
});
