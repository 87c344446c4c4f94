/**
 * One `teammem watch` per memory folder: a lock of its own (`.teammem/watch.lock`, proper-lockfile,
 * taken as the command lock is, with its holder recorded beside it in `watch.lock.holder`: a killed
 * watch's lock is taken over at once on this machine), held for the whole watch, and beside it
 * `.teammem/watch.pid` naming the process, so a second watch is refused with the pid of the first
 * (older clients read it too). Separate from the command lock, which the watch takes only while it
 * syncs, so `status`, `resolve`, `sync`... keep working.
 */
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { ClientError } from "../errors.js";
import { writeFileAtomic } from "../state/atomic.js";
import type { Layout } from "../state/layout.js";
import { STALE_MS, lockWithHolder, type HeldLock } from "../state/lock.js";

/** Another `teammem watch` runs on the folder. */
export class WatchRunningError extends ClientError {
  constructor(
    root: string,
    /** Its process id, when its pid file could be read. */
    readonly pid: number | undefined,
  ) {
    super(
      `teammem watch is already running on ${root}${pid === undefined ? "" : ` (pid ${pid})`}; ` +
        `stop it first (a watch that was killed frees the folder at once, or within ${STALE_MS / 1000} s if it ran on another machine)`,
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

/** What a watch says when it took over the lock of a watch that ended (pid `pid`). */
export function tookOverWatchMessage(pid: number): string {
  return `took over the lock of a watch that ended (pid ${pid})`;
}

/**
 * Takes the folder's watch lock and records this process's pid. A lock left by a watch that was
 * killed on this machine is taken over at once (`tookOverPid`); one whose holder cannot be proved
 * gone (another machine's, an older client's) 30 s after it was last refreshed; a live watch's never.
 * @returns `release` frees the lock and the pid file; `tookOverPid` is the pid of the ended watch whose lock was taken over at once, if so.
 * @param onLost called when the lock was lost while held (the process stalled past {@link STALE_MS}).
 * @throws WatchRunningError when another watch holds it.
 */
export async function acquireWatchLock(layout: Layout, onLost: (err: Error) => void): Promise<HeldLock> {
  let held: HeldLock;
  try {
    // Keyed by its own name: proper-lockfile keeps one lock per key and process, and the command
    // lock (taken by each sync of the watch, in this process) is keyed by the state folder.
    held = await lockWithHolder(join(layout.state, "watch"), layout.watchLock, { retries: 0, onCompromised: onLost });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ELOCKED") throw new WatchRunningError(layout.root, await runningWatchPid(layout));
    throw err;
  }
  await writeFileAtomic(layout.watchPid, `${process.pid}\n`);
  return {
    tookOverPid: held.tookOverPid,
    release: async () => {
      await rm(layout.watchPid, { force: true });
      await held.release().catch(() => undefined); // already released by a takeover: nothing left to free
    },
  };
}
