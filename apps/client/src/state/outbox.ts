/**
 * The durable local queue of write operations (`.teammem/outbox/`). Each operation is one JSON file,
 * written atomically before anything is sent and removed only after its result is stored. A replay
 * sends the same `opId`, so the server applies each operation at most once.
 * File names sort in enqueue order: `<ms since epoch, 15 digits>-<index, 6 digits>-<opId>.json`.
 */
import { mkdir, readdir } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { Operation, Sha256 } from "@teammem/protocol";
import { TEMP_PREFIX, fsyncDir, readJson, unlinkDurable, writeJsonAtomic } from "./atomic.js";
import type { Layout } from "./layout.js";

export const OutboxEntry = z.object({
  operation: Operation,
  /** sha256 of the content sent (null for a delete): tells whether the local file still is what was sent. */
  sha256: Sha256.nullable(),
  queuedAt: z.string(),
});
export type OutboxEntry = z.infer<typeof OutboxEntry>;

/** An entry together with the file that holds it. */
export interface QueuedOperation {
  readonly file: string;
  readonly entry: OutboxEntry;
}

/** Writes each entry to its own file, durably (file and folder fsynced), in order. */
export async function enqueue(layout: Layout, entries: readonly OutboxEntry[]): Promise<QueuedOperation[]> {
  await mkdir(layout.outbox, { recursive: true });
  const stamp = String(Date.now()).padStart(15, "0");
  const queued: QueuedOperation[] = [];
  for (const [i, entry] of entries.entries()) {
    const file = join(layout.outbox, `${stamp}-${String(i).padStart(6, "0")}-${entry.operation.opId}.json`);
    await writeJsonAtomic(file, entry);
    queued.push({ file, entry });
  }
  if (queued.length > 0) await fsyncDir(layout.state);
  return queued;
}

/** Every queued operation, oldest first. */
export async function listOutbox(layout: Layout): Promise<QueuedOperation[]> {
  let names: string[];
  try {
    names = await readdir(layout.outbox);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw err;
  }
  const queued: QueuedOperation[] = [];
  for (const name of names.filter((n) => n.endsWith(".json") && !n.startsWith(TEMP_PREFIX)).sort()) {
    const file = join(layout.outbox, name);
    const entry = await readJson(file, OutboxEntry);
    if (entry) queued.push({ file, entry });
  }
  return queued;
}

/** Removes a queued operation once its result is stored. */
export async function dequeue(op: QueuedOperation): Promise<void> {
  await unlinkDurable(op.file);
}
