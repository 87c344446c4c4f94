/**
 * A single fast-forward write (an edit or delete of a live entry from its head version) takes one
 * round trip on PostgreSQL (store/fast-forward.ts, the function of migrations 0011/0012) and must give exactly the results, history,
 * cursors, notifications and stored results of the general protocol; everything else falls back
 * to it. Its notification goes in its own transaction when nothing else of the instance notifies,
 * else after its commit (store/change-notifier.ts). Devices seen fresh
 * by the instance cost no query (store/devices.ts).
 */
import pg from "pg";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { OperationResult } from "@teammem/protocol";
import { ChangeNotifier } from "../../src/store/change-notifier.js";
import { DATABASE_KINDS } from "../../src/testing.js";
import { opId, useHarness, type Harness } from "./harness.js";

const put = (path: string, baseVersion: number, content: string, id = opId("ff")) => ({ opId: id, path, baseVersion, content });
const del = (path: string, baseVersion: number, id = opId("ff-del")) => ({ opId: id, path, baseVersion, delete: true });

async function history(h: Harness, ns: string, path: string): Promise<Record<string, unknown>[]> {
  const res = await h.call("GET", `/v1/namespaces/${ns}/history?path=${encodeURIComponent(path)}`, h.tokens.member);
  expect(res.statusCode, res.body).toBe(200);
  return (res.json() as { versions: Record<string, unknown>[] }).versions;
}

async function feed(h: Harness, ns: string): Promise<{ nextCursor: number; changes: Record<string, unknown>[] }> {
  const res = await h.call("GET", `/v1/namespaces/${ns}/changes?since=0`, h.tokens.member);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { nextCursor: number; changes: Record<string, unknown>[] };
}

describe.each(DATABASE_KINDS)("single fast-forward writes on %s", (kind) => {
  const h = useHarness(kind, { maxEntriesPerNamespace: 2 });

  it("applies an edit from the head as the next version at the next cursor, with author, client and a stored result", async () => {
    const created = await h.one("ff-edit", put("a.md", 0, "one\n"));
    expect(created).toMatchObject({ status: "applied", version: 1, cursor: 1 });
    const edit = put("a.md", 1, "one\ntwo\n");
    const [edited] = await h.batch("ff-edit", [edit], { clientId: "laptop-1" });
    expect(edited).toEqual({ opId: edit.opId, path: "a.md", status: "applied", version: 2, sha256: expect.stringMatching(/^[0-9a-f]{64}$/), deleted: false, cursor: 2 });
    const [v2] = await history(h, "ff-edit", "a.md");
    expect(v2).toMatchObject({ version: 2, kind: "write", sha256: edited?.status === "applied" ? edited.sha256 : "", size: 8, parentVersion: 1, baseVersion: null, author: "ann", clientId: "laptop-1", opId: edit.opId, cursor: 2 });
    const entry = await h.call("GET", "/v1/namespaces/ff-edit/entry?path=a.md", h.tokens.member);
    expect(entry.json()).toMatchObject({ version: 2, content: "one\ntwo\n", cursor: 2 });
    // A replay gets the stored result verbatim and writes nothing.
    const [again] = await h.batch("ff-edit", [edit], { clientId: "laptop-1" });
    expect(again).toEqual(edited);
    // The same opId for another request is refused.
    expect(await h.one("ff-edit", { ...edit, content: "other\n" })).toMatchObject({ status: "rejected", code: "invalid_request", details: { reason: "op_id_reused" } });
    const changes = await feed(h, "ff-edit");
    expect(changes.nextCursor).toBe(2);
    expect(changes.changes.map((c) => [c.path, c.version, c.cursor])).toEqual([["a.md", 2, 2]]);
  });

  it("writes a tombstone for a delete from the head and frees its place under the entry limit", async () => {
    await h.batch("ff-limit", [put("a.md", 0, "a\n"), put("b.md", 0, "b\n")]);
    expect(await h.one("ff-limit", put("c.md", 0, "c\n"))).toMatchObject({ status: "rejected", code: "namespace_full" });
    expect(await h.one("ff-limit", del("a.md", 1))).toMatchObject({ status: "applied", version: 2, deleted: true, sha256: null, cursor: 3 });
    expect((await history(h, "ff-limit", "a.md"))[0]).toMatchObject({ version: 2, kind: "delete", deleted: true });
    expect(await h.one("ff-limit", put("c.md", 0, "c\n"))).toMatchObject({ status: "applied", version: 1, cursor: 4 });
    expect(await h.one("ff-limit", put("d.md", 0, "d\n"))).toMatchObject({ status: "rejected", code: "namespace_full" });
  });

  it("answers an edit whose clientId or path holds a NUL character without a 500", async () => {
    await h.one("ff-nul", put("a.md", 0, "a\n"));
    const res = await h.call("POST", "/v1/namespaces/ff-nul/batch", h.tokens.member, { clientId: "lap\u0000top", operations: [put("a.md", 1, "a2\n")] });
    expect(res.statusCode, res.body).toBeLessThan(500);
    expect(await h.one("ff-nul", put("a\u0000.md", 1, "a2\n"))).toMatchObject({ status: "rejected", code: "invalid_path" });
    expect(await h.one("ff-nul", put("a.md", 1, "a3\n"))).toMatchObject({ status: "applied", version: 2 });
  });

  it("falls back to the general protocol when the head is not live at the base with other content", async () => {
    await h.one("ff-fallback", put("a.md", 0, "one\ntwo\nthree\n"));
    // The head's own content: nothing new.
    expect(await h.one("ff-fallback", put("a.md", 1, "one\ntwo\nthree\n"))).toMatchObject({ status: "applied", version: 1, cursor: 1 });
    expect(await h.one("ff-fallback", put("a.md", 1, "ONE\ntwo\nthree\n"))).toMatchObject({ status: "applied", version: 2, cursor: 2 });
    // A stale base: merged; a base ahead: version_conflict.
    expect(await h.one("ff-fallback", put("a.md", 1, "one\ntwo\nTHREE\n"))).toMatchObject({ status: "merged", version: 3, content: "ONE\ntwo\nTHREE\n" });
    expect(await h.one("ff-fallback", put("a.md", 9, "x\n"))).toMatchObject({ status: "rejected", code: "version_conflict" });
    // A delete of a tombstone: nothing new; a put on a tombstone from its version: the path lives again.
    expect(await h.one("ff-fallback", del("a.md", 3))).toMatchObject({ status: "applied", version: 4, deleted: true });
    expect(await h.one("ff-fallback", del("a.md", 4))).toMatchObject({ status: "applied", version: 4, deleted: true, cursor: 4 });
    expect(await h.one("ff-fallback", put("a.md", 4, "back\n"))).toMatchObject({ status: "applied", version: 5, cursor: 5 });
    expect((await feed(h, "ff-fallback")).nextCursor).toBe(5);
  });
});

describe("single fast-forward writes on postgres: round trips", () => {
  const h = useHarness("postgres");
  afterEach(() => vi.restoreAllMocks());

  /** The SQL texts the server's connections send while `run` runs. */
  async function queriesDuring(run: () => Promise<unknown>): Promise<string[]> {
    const sent: string[] = [];
    const query = pg.Client.prototype.query;
    vi.spyOn(pg.Client.prototype, "query").mockImplementation(function (this: pg.Client, ...args: unknown[]) {
      const q = args[0] as string | { text: string };
      sent.push(typeof q === "string" ? q : q.text);
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof query);
    await run();
    vi.restoreAllMocks();
    return sent;
  }

  it("sends an edit and a delete from the head as one query, notifying the new cursor in it when nothing else notifies, else after the commit", async () => {
    await h.batch("ff-trips", [put("a.md", 0, "a\n"), put("b.md", 0, "b\n")], { clientId: "laptop-1" });
    await h.app.changeNotifier.flush(); // its notification (cursor 2) is sent before the listener starts
    const pool = (h.db as unknown as { $client: pg.Pool }).$client;
    const listener = await pool.connect();
    const notes: string[] = [];
    listener.on("notification", (n) => notes.push(n.payload ?? ""));
    await listener.query("LISTEN teammem_changes");
    try {
      let result: OperationResult | undefined;
      const sent = await queriesDuring(async () => {
        [result] = await h.batch("ff-trips", [put("a.md", 1, "a2\n")], { clientId: "laptop-1" });
        await h.app.changeNotifier.flush();
      });
      expect(result).toMatchObject({ status: "applied", version: 2, cursor: 3 });
      // Nothing else of this instance notifying: the write carries its own notification, one round trip.
      expect(sent).toHaveLength(1);
      expect(sent[0]).toMatch(/^SELECT .*pg_notify\('teammem_changes', .* FROM teammem_fast_forward\(/);
      const deleted = await queriesDuring(async () => {
        // As while another write's notification is in flight: the notifier keeps this one.
        vi.spyOn(ChangeNotifier.prototype, "claimInline").mockReturnValue(false);
        await h.batch("ff-trips", [del("b.md", 1)], { clientId: "laptop-1" });
        await h.app.changeNotifier.flush();
      });
      // The write, then (its own transaction, after the commit) the notification.
      expect(deleted).toHaveLength(2);
      expect(deleted[0]).toMatch(/^SELECT .* FROM teammem_fast_forward\(/);
      expect(deleted[0]).not.toContain("pg_notify");
      expect(deleted[1]).toMatch(/pg_notify\('teammem_changes', p\) FROM unnest\(/);
      // The function (migration 0012) sends nothing itself: the caller decides, since a NOTIFY in
      // the write's transaction would serialize concurrent commits.
      const fn = await pool.query("SELECT prosrc FROM pg_proc WHERE proname = 'teammem_fast_forward'");
      expect(fn.rows).toHaveLength(1);
      expect((fn.rows[0] as { prosrc: string }).prosrc).not.toContain("pg_notify");
      // The general protocol (a creation) notifies after its COMMIT too.
      const created = await queriesDuring(async () => {
        await h.batch("ff-trips", [put("c.md", 0, "c\n")], { clientId: "laptop-1" });
        await h.app.changeNotifier.flush();
      });
      const commit = created.findIndex((q) => /COMMIT\s*$/.test(q));
      expect(commit).toBeGreaterThan(0);
      expect(created.slice(0, commit + 1).filter((q) => q.includes("pg_notify"))).toEqual([]);
      expect(created.slice(commit + 1)).toEqual([expect.stringContaining("pg_notify")]);
      const ns = (await pool.query("SELECT id FROM namespaces WHERE name = 'ff-trips'")).rows[0] as { id: string };
      await vi.waitFor(() => expect(notes).toEqual([`${ns.id}:3`, `${ns.id}:4`, `${ns.id}:5`]));
    } finally {
      await listener.query("UNLISTEN teammem_changes");
      listener.release();
    }
  });

  it("writes without its notification when the notification queue is full, and notifies after the commit", async () => {
    await h.batch("ff-full", [put("a.md", 0, "a\n")]);
    await h.app.changeNotifier.flush();
    const query = pg.Pool.prototype.query;
    const sent: string[] = [];
    // PostgreSQL refuses the commit of a transaction that NOTIFYs while its queue is full (SQLSTATE 54000).
    vi.spyOn(pg.Pool.prototype, "query").mockImplementation(function (this: pg.Pool, ...args: unknown[]) {
      const text = (args[0] as { text?: string }).text ?? String(args[0]);
      sent.push(text);
      if (/^SELECT .*pg_notify\(.* FROM teammem_fast_forward\(/.test(text)) {
        return Promise.reject(Object.assign(new Error("too many notifications in the NOTIFY queue"), { code: "54000" }));
      }
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof query);
    expect(await h.one("ff-full", put("a.md", 1, "a2\n"))).toMatchObject({ status: "applied", version: 2, cursor: 2 });
    await h.app.changeNotifier.flush();
    vi.restoreAllMocks();
    expect(sent).toEqual([
      expect.stringContaining("pg_notify"),
      expect.not.stringContaining("pg_notify"),
      expect.stringMatching(/pg_notify\('teammem_changes', p\) FROM unnest\(/),
    ]);
    expect((await feed(h, "ff-full")).nextCursor).toBe(2);
  });

  it("asks the database about a device once while it is fresh", async () => {
    await h.batch("ff-device", [put("a.md", 0, "a\n")], { clientId: "desktop-7" });
    const pool = (h.db as unknown as { $client: pg.Pool }).$client;
    const seen = await pool.query("SELECT last_seen_at FROM devices WHERE client_id = 'desktop-7'");
    expect(seen.rowCount).toBe(1);
    const sent = await queriesDuring(() => h.batch("ff-device", [put("a.md", 1, "a2\n")], { clientId: "desktop-7" }));
    expect(sent.filter((q) => q.includes("devices"))).toEqual([]);
    // Another device of the same principal is new: read, then recorded.
    const other = await queriesDuring(() => h.batch("ff-device", [put("a.md", 2, "a3\n")], { clientId: "desktop-8" }));
    expect(other.filter((q) => q.includes("devices"))).toHaveLength(2);
    expect((await pool.query("SELECT client_id FROM devices WHERE client_id LIKE 'desktop-%' ORDER BY client_id")).rows).toEqual([{ client_id: "desktop-7" }, { client_id: "desktop-8" }]);
  });
});
