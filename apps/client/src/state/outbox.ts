/**
 * The durable local queue of write operations (`.teammem/outbox/`). Each operation is one JSON file,
 * written atomically before anything is sent and removed only after its result is stored. A replay
 * sends the same `opId`, so the server applies each operation at most once.
 *
 * Order is a sequence, not a clock: each operation gets the next number of the folder's outbox
 * sequence (1, 2, 3, ...; never reused, like Replicache's mutation ids) and its file is named
 * `<seq, 16 digits>-<opId>.json`, so names sort in enqueue order whatever the clock does. The last
 * number handed out is kept in `.teammem/outbox-seq.json` and written before the operations that
 * use it: a crash in between leaves a gap, never a number used twice. Files named by earlier
 * versions (`<ms, 15 digits>-<index, 6 digits>-<opId>.json`) are listed first, in name order.
 *
 * An operation that may have reached the server is immutable (try21 F3): before a batch request
 * leaves, the opIds it carries are appended to `.teammem/outbox-sent.log` and fsynced (one fsync
 * per batch, {@link markSent}). An operation never sent may still be rewritten in place at send
 * time (same opId: the server never saw it); one in the log is replayed exactly as queued, and a
 * newer content of its file (or its deletion) becomes a new operation with a new opId. A line cut
 * off by a crash during the append is ignored: that batch was not sent, since the append had not
 * returned. Lines of operations no longer queued are dropped when the log is compacted
 * ({@link compactSent}), and the log is removed once the outbox is empty.
 */
import { readdirSync } from "node:fs";
import { mkdir, open, readFile, readdir, unlink } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { Operation, Sha256 } from "@teammem/protocol";
import { TEMP_PREFIX, fsyncDir, readJson, unlinkDurable, writeFileAtomic, writeJsonAtomic } from "./atomic.js";
import type { Layout } from "./layout.js";

const SEQ_DIGITS = 16;
const SEQ_NAME = /^(\d{16})-/;
const LEGACY_NAME = /^\d{15}-\d{6}-/;

/** What to do about a damaged queued operation: it is an edit not sent yet, so it is never moved or deleted by teammem. */
const OUTBOX_HINT =
  "it is an edit queued and not sent yet, so it was left as it is: repair the JSON, or move the file out of .teammem/outbox/ " +
  "(the file in team/ still holds your edit and the next sync queues it again; a queued delete or rename must then be done again)";

/** `.teammem/outbox-seq.json`: the last sequence number handed out (0: none yet); rebuilt from the operation files' names when damaged. */
export const OutboxSeq = z.object({ lastSeq: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER) });

export const OutboxEntry = z.object({
  operation: Operation,
  /** sha256 of the content sent (null for a delete): tells whether the local file still is what was sent. */
  sha256: Sha256.nullable(),
  queuedAt: z.string(),
  /**
   * The scanner's rule set the content was scanned with when queued (see `sync/send-path.ts`); an
   * operation queued under another rule set (or by an older client, absent) is scanned again before it is sent.
   */
  ruleSet: z.string().optional(),
  /**
   * Set (by {@link enqueue}) on operations queued by a client that marks each send in
   * `outbox-sent.log` before it happens. Absent: queued by an older client, which did not, and
   * rewrote a queued operation under the same opId at send time even after sending it (try21 F3):
   * such an operation may have reached the server in an earlier form.
   */
  sendsLogged: z.literal(true).optional(),
});
export type OutboxEntry = z.infer<typeof OutboxEntry>;

/** An entry together with the file that holds it. */
export interface QueuedOperation {
  readonly file: string;
  readonly entry: OutboxEntry;
}

/**
 * Writes each entry to its own file, durably (each file, then the folder once, fsynced), in order, numbered after
 * every operation queued before (see the module comment).
 * @throws StateError when `outbox-seq.json` is unreadable.
 */
export async function enqueue(layout: Layout, entries: readonly OutboxEntry[]): Promise<QueuedOperation[]> {
  if (entries.length === 0) return [];
  await mkdir(layout.outbox, { recursive: true });
  // The stored number, or the highest queued one if that is higher (a seq file restored from a backup).
  let last = (await readJson(layout.outboxSeq, OutboxSeq))?.lastSeq ?? 0;
  for (const name of await operationFiles(layout)) last = Math.max(last, Number(SEQ_NAME.exec(name)?.[1] ?? 0));
  await writeJsonAtomic(layout.outboxSeq, { lastSeq: last + entries.length });
  const queued: QueuedOperation[] = [];
  for (const [i, entry] of entries.entries()) {
    const seq = String(last + 1 + i).padStart(SEQ_DIGITS, "0");
    const file = join(layout.outbox, `${seq}-${entry.operation.opId}.json`);
    // Each file's content is fsynced; the folder once for all of them, below.
    const logged: OutboxEntry = { ...entry, sendsLogged: true };
    await writeFileAtomic(file, JSON.stringify(logged, null, 2) + "\n", 0o644, false);
    queued.push({ file, entry: logged });
  }
  await fsyncDir(layout.outbox);
  await fsyncDir(layout.state);
  return queued;
}

/** Names of the operation files in the outbox, in enqueue order (legacy names first); [] without an outbox. */
async function operationFiles(layout: Layout): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(layout.outbox);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw err;
  }
  const ops = names.filter(isOperationFile);
  return [...ops.filter((n) => LEGACY_NAME.test(n)).sort(), ...ops.filter((n) => !LEGACY_NAME.test(n)).sort()];
}

/** Whether `name` in the outbox folder is an operation's file (not a temporary file of an atomic write). */
function isOperationFile(name: string): boolean {
  return name.endsWith(".json") && !name.startsWith(TEMP_PREFIX);
}

/** {@link outboxSize}, synchronously: for a signal handler that must not let the process run on. */
export function outboxSizeSync(layout: Layout): number {
  try {
    return readdirSync(layout.outbox).filter(isOperationFile).length;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return 0;
    throw err;
  }
}

/** How many operations are queued (their files are not read). */
export async function outboxSize(layout: Layout): Promise<number> {
  return (await operationFiles(layout)).length;
}

/** Every queued operation, oldest first. */
export async function listOutbox(layout: Layout): Promise<QueuedOperation[]> {
  const queued: QueuedOperation[] = [];
  for (const name of await operationFiles(layout)) {
    const file = join(layout.outbox, name);
    const entry = await readJson(file, OutboxEntry, OUTBOX_HINT);
    if (entry) queued.push({ file, entry });
  }
  return queued;
}

/**
 * Replaces the operation in `op`'s file (atomically) by `entry`, e.g. what the file holds at send
 * time; its place in the queue stays. Returns the queued operation as it now is.
 */
export async function replaceQueued(op: QueuedOperation, entry: OutboxEntry): Promise<QueuedOperation> {
  const kept: OutboxEntry = { ...entry, ...(op.entry.sendsLogged ? { sendsLogged: true } : {}) };
  await writeJsonAtomic(op.file, kept);
  return { file: op.file, entry: kept };
}

/** Removes a queued operation once its result is stored. */
export async function dequeue(op: QueuedOperation): Promise<void> {
  await unlinkDurable(op.file);
}

/**
 * Removes several queued operations (results stored), then makes the removals durable with one
 * fsync of the outbox folder instead of one per operation. A crash before that fsync may bring some
 * back: they are sent again with the same opIds and the server answers with the stored results.
 */
export async function dequeueAll(layout: Layout, ops: readonly QueuedOperation[]): Promise<void> {
  if (ops.length === 0) return;
  for (const op of ops) {
    try {
      await unlink(op.file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    }
  }
  await fsyncDir(layout.outbox);
}

/** The opIds of queued operations that may have reached the server (see the module comment); empty without a log. */
export async function sentOpIds(layout: Layout): Promise<Set<string>> {
  let text: string;
  try {
    text = await readFile(layout.outboxSent, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return new Set();
    throw err;
  }
  return new Set(text.split("\n").filter((line) => SENT_LINE.test(line)));
}

/** One opId per line (the protocol's opId alphabet); anything else (a line cut off) is not a mark. */
const SENT_LINE = /^[A-Za-z0-9._:-]{8,128}$/;

/**
 * Marks `opIds` as possibly sent, durably (appended, then one fsync; the folder fsynced when the
 * log is new): call before the request carrying them leaves.
 * @throws the file system's error (ENOSPC...): then do not send them.
 */
export async function markSent(layout: Layout, opIds: readonly string[]): Promise<void> {
  if (opIds.length === 0) return;
  // Led by a newline too: a line cut off earlier never swallows the first opId of this one.
  const handle = await open(layout.outboxSent, "a", 0o644);
  let created: boolean;
  try {
    created = (await handle.stat()).size === 0;
    await handle.writeFile(`\n${opIds.join("\n")}\n`, "utf8");
    await handle.sync();
  } finally {
    await handle.close();
  }
  if (created) await fsyncDir(layout.state);
}

/**
 * Keeps in the log only the opIds of operations still `queued` (removes it when none is): call
 * when no request is in flight. Rewritten atomically, and only when it holds lines to drop.
 * @returns the opIds of `queued` that may have been sent.
 */
export async function compactSent(layout: Layout, queued: readonly QueuedOperation[]): Promise<Set<string>> {
  const sent = await sentOpIds(layout);
  const live = new Set(queued.map((q) => q.entry.operation.opId));
  const keep = new Set([...sent].filter((id) => live.has(id)));
  if (keep.size === 0) await unlinkDurable(layout.outboxSent);
  else if (keep.size < sent.size) await writeFileAtomic(layout.outboxSent, `${[...keep].join("\n")}\n`);
  return keep;
}
