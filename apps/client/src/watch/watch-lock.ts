/**
 * One `teammem watch` per memory folder: a lock of its own (`.teammem/watch.lock`, proper-lockfile,
 * like the command lock), held for the whole watch, and beside it `.teammem/watch.pid` naming the
 * process, so a second watch is refused with the pid of the first. Separate from the command lock,
 * which the watch takes only while it syncs, so `status`, `resolve`, `sync`... keep working.
 */
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import lockfile from "proper-lockfile";
import { ClientError } from "../errors.js";
import { writeFileAtomic } from "../state/atomic.js";
import type { Layout } from "../state/layout.js";
import { STALE_MS } from "../state/lock.js";

/** Another `teammem watch` runs on the folder. */
export class WatchRunningError extends ClientError {
  constructor(
    root: string,
    /** Its process id, when its pid file could be read. */
    readonly pid: number | undefined,
  ) {
    super(
      `teammem watch is already running on ${root}${pid === undefined ? "" : ` (pid ${pid})`}; ` +
        `stop it first (a watch that was killed frees the folder within ${STALE_MS / 1000} s)`,
      1,
      "watch_running",
    );
  }
}

/** The pid recorded by the running watch, if readable. */
export async function runningWatchPid(layout: Layout): Promise<number | undefined> {
  try {
    const pid = Number((await readFile(layout.watchPid, "utf8")).trim());
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Takes the folder's watch lock and records this process's pid.
 * @param onLost called when the lock was lost while held (the process stalled past {@link STALE_MS}).
 * @returns a function releasing both.
 * @throws WatchRunningError when another watch holds it.
 */
export async function acquireWatchLock(layout: Layout, onLost: (err: Error) => void): Promise<() => Promise<void>> {
  let release: () => Promise<void>;
  try {
    // Keyed by its own name: proper-lockfile keeps one lock per key and process, and the command
    // lock (taken by each sync of the watch, in this process) is keyed by the state folder.
    release = await lockfile.lock(join(layout.state, "watch"), {
      lockfilePath: layout.watchLock,
      realpath: false,
      stale: STALE_MS,
      retries: 0,
      onCompromised: onLost,
    });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ELOCKED") throw new WatchRunningError(layout.root, await runningWatchPid(layout));
    throw err;
  }
  await writeFileAtomic(layout.watchPid, `${process.pid}\n`);
  return async () => {
    await rm(layout.watchPid, { force: true });
    await release().catch(() => undefined); // already released by a takeover: nothing left to free
  };
}
