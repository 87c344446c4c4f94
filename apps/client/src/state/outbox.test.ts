import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { layoutOf } from "./layout.js";
import { dequeue, enqueue, listOutbox, type OutboxEntry } from "./outbox.js";

const put = (opId: string, path: string): OutboxEntry => ({
  operation: { opId, path, baseVersion: 0, content: path },
  sha256: null,
  queuedAt: "2026-01-01T00:00:00.000Z",
});

describe("outbox", () => {
  it("lists queued operations oldest first across enqueues, skips temporary files, and forgets dequeued ones", async () => {
    const root = await mkdtemp(join(tmpdir(), "teammem-outbox-"));
    onTestFinished(() => rm(root, { recursive: true, force: true }));
    const layout = layoutOf(root);
    await mkdir(layout.state);
    await enqueue(layout, [put("op-00000001", "b.md"), put("op-00000002", "a.md")]);
    await new Promise((r) => setTimeout(r, 5));
    await enqueue(layout, [put("op-00000003", "c.md")]);
    await writeFile(join(layout.outbox, ".teammem-tmp-abc"), "{");
    const queued = await listOutbox(layout);
    expect(queued.map((q) => q.entry.operation.opId)).toEqual(["op-00000001", "op-00000002", "op-00000003"]);
    await dequeue(queued[0]!);
    expect((await listOutbox(layout)).map((q) => q.entry.operation.opId)).toEqual(["op-00000002", "op-00000003"]);
    expect((await readdir(layout.outbox)).filter((n) => n.endsWith(".json"))).toHaveLength(2);
  });

  it("lists nothing when the outbox folder does not exist yet", async () => {
    expect(await listOutbox(layoutOf(join(tmpdir(), "teammem-never-created")))).toEqual([]);
  });
});
