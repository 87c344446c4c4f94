import { appendFile, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { layoutOf, type Layout } from "./layout.js";
import { compactSent, dequeue, enqueue, listOutbox, markSent, sentOpIds, type OutboxEntry } from "./outbox.js";

const put = (opId: string, path: string): OutboxEntry => ({
  operation: { opId, path, baseVersion: 0, content: path },
  sha256: null,
  queuedAt: "2026-01-01T00:00:00.000Z",
});

async function freshLayout(): Promise<Layout> {
  const root = await mkdtemp(join(tmpdir(), "teammem-outbox-"));
  onTestFinished(() => rm(root, { recursive: true, force: true }));
  const layout = layoutOf(root);
  await mkdir(layout.state);
  return layout;
}

const opIds = async (layout: Layout) => (await listOutbox(layout)).map((q) => q.entry.operation.opId);
const opFiles = async (layout: Layout) => (await readdir(layout.outbox)).filter((n) => n.endsWith(".json")).sort();

describe("outbox", () => {
  it("lists queued operations oldest first across enqueues, skips temporary files, and forgets dequeued ones", async () => {
    const layout = await freshLayout();
    await enqueue(layout, [put("op-00000001", "b.md"), put("op-00000002", "a.md")]);
    await enqueue(layout, [put("op-00000003", "c.md")]);
    await writeFile(join(layout.outbox, ".teammem-tmp-abc"), "{");
    const queued = await listOutbox(layout);
    expect(queued.map((q) => q.entry.operation.opId)).toEqual(["op-00000001", "op-00000002", "op-00000003"]);
    await dequeue(queued[0]!);
    expect(await opIds(layout)).toEqual(["op-00000002", "op-00000003"]);
    expect(await opFiles(layout)).toHaveLength(2);
  });

  it("keeps enqueue order when the clock stands still or goes backwards (issue 7: names came from Date.now())", async () => {
    const layout = await freshLayout();
    const now = vi.spyOn(Date, "now");
    onTestFinished(() => now.mockRestore());
    now.mockReturnValue(1_767_225_600_000);
    await enqueue(layout, [put("op-zz-first", "a.md"), put("op-yy-second", "b.md")]);
    await enqueue(layout, [put("op-xx-third", "c.md")]); // same millisecond
    now.mockReturnValue(1_767_225_500_000); // the clock was set back
    await enqueue(layout, [put("op-ww-fourth", "d.md")]);
    expect(await opIds(layout)).toEqual(["op-zz-first", "op-yy-second", "op-xx-third", "op-ww-fourth"]);
    expect(await opFiles(layout)).toEqual([
      "0000000000000001-op-zz-first.json",
      "0000000000000002-op-yy-second.json",
      "0000000000000003-op-xx-third.json",
      "0000000000000004-op-ww-fourth.json",
    ]);
  });

  it("never reuses a number: not after the outbox drained, nor when the stored sequence is behind the queued files", async () => {
    const layout = await freshLayout();
    const [first] = await enqueue(layout, [put("op-00000001", "a.md")]);
    await dequeue(first!);
    await enqueue(layout, [put("op-00000002", "b.md"), put("op-00000003", "c.md")]);
    expect(await opFiles(layout)).toEqual(["0000000000000002-op-00000002.json", "0000000000000003-op-00000003.json"]);
    // A sequence file older than the queue (restored from a backup): numbering continues after the queue.
    await writeFile(layout.outboxSeq, JSON.stringify({ lastSeq: 1 }));
    await enqueue(layout, [put("op-00000004", "d.md")]);
    expect(await opIds(layout)).toEqual(["op-00000002", "op-00000003", "op-00000004"]);
    expect(await opFiles(layout)).toContain("0000000000000004-op-00000004.json");
  });

  it("lists operations queued by the previous naming (<ms>-<index>-<opId>) before newer ones", async () => {
    const layout = await freshLayout();
    await mkdir(layout.outbox);
    for (const [name, op] of [
      ["001767225600000-000001-op-legacy-b.json", put("op-legacy-b", "b.md")],
      ["001767225600000-000000-op-legacy-a.json", put("op-legacy-a", "a.md")],
    ] as const)
      await writeFile(join(layout.outbox, name), JSON.stringify(op));
    await enqueue(layout, [put("op-new-c", "c.md")]);
    expect(await opIds(layout)).toEqual(["op-legacy-a", "op-legacy-b", "op-new-c"]);
  });

  it("refuses an unreadable sequence file with a StateError naming it, and queues nothing", async () => {
    const layout = await freshLayout();
    await writeFile(layout.outboxSeq, "{ not json");
    await expect(enqueue(layout, [put("op-00000001", "a.md")])).rejects.toThrow(`state file ${layout.outboxSeq} is unreadable: not JSON`);
    expect(await listOutbox(layout)).toEqual([]);
  });

  it("marks operations queued by this client as logging their sends, and keeps the mark when one is rewritten", async () => {
    const layout = await freshLayout();
    const [q] = await enqueue(layout, [put("op-00000001", "a.md")]);
    expect(q!.entry.sendsLogged).toBe(true);
    expect((await listOutbox(layout))[0]!.entry.sendsLogged).toBe(true);
  });

  it("logs sent opIds durably, ignores a line cut off by a crash, and compacts the log to what is still queued (try21 F3)", async () => {
    const layout = await freshLayout();
    expect(await sentOpIds(layout)).toEqual(new Set());
    const queued = await enqueue(layout, [put("op-00000001", "a.md"), put("op-00000002", "b.md"), put("op-00000003", "c.md")]);
    await markSent(layout, ["op-00000001", "op-00000002"]);
    await appendFile(layout.outboxSent, "op-0000"); // an append cut off: that batch never left
    await markSent(layout, ["op-00000003"]);
    expect(await sentOpIds(layout)).toEqual(new Set(["op-00000001", "op-00000002", "op-00000003"]));

    await dequeue(queued[0]!);
    const left = await listOutbox(layout);
    expect(await compactSent(layout, left)).toEqual(new Set(["op-00000002", "op-00000003"]));
    expect(await readFile(layout.outboxSent, "utf8")).toBe("op-00000002\nop-00000003\n");
    for (const q of left) await dequeue(q);
    expect(await compactSent(layout, [])).toEqual(new Set());
    await expect(readFile(layout.outboxSent, "utf8")).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("lists nothing when the outbox folder does not exist yet", async () => {
    expect(await listOutbox(layoutOf(join(tmpdir(), "teammem-never-created")))).toEqual([]);
  });
});
