/**
 * One command at a time per memory folder, through proper-lockfile: the lock is the folder
 * `.teammem/command.lock` (created with mkdir, atomic), its mtime refreshed while held, and beside
 * it the file `command.lock.holder` naming its process (see lock-holder.ts). A lock whose holder is
 * provably gone (killed on this machine: no such process, or its pid now names a process started
 * later) is taken over at once; any other lock not refreshed for {@link STALE_MS} (its holder on
 * another machine sharing the folder, or a platform where the check cannot be made) is taken over
 * then. A normal exit, Ctrl-C included, removes it. The `teammem watch` lock works the same way
 * (watch/watch-lock.ts, through {@link lockWithHolder}).
 */
import fs from "node:fs";
import lockfile from "proper-lockfile";
import { ClientError } from "../errors.js";
import { writeFileAtomic } from "./atomic.js";
import type { Layout } from "./layout.js";
import { LockHolder, holderState, thisHolder } from "./lock-holder.js";

/** Another command holds the folder's lock (agents' hooks wait a moment and retry). */
export class LockBusyError extends ClientError {
  constructor(message: string) {
    super(message, 1, "folder_busy");
  }
}

/** A lock whose mtime is older than this (ms) belongs to a process that is gone. */
export const STALE_MS = 30_000;

/** How long a command run by hand waits for the lock, ms: longer than one sync of a running watch usually takes. */
export const COMMAND_LOCK_WAIT_MS = 10_000;

/** How often a waiting command tries the lock again, ms. */
const RETRY_EVERY_MS = 100;

/**
 * The file naming the holder of the lock folder `lockPath` (JSON, {@link LockHolder}): beside the
 * folder, never in it. In it, it would stop an older client (which removes a stale lock with rmdir)
 * from ever taking the lock over, and writing it would change the folder's mtime, which
 * proper-lockfile checks at each refresh (the lock then counts as lost 15 s after it was taken).
 */
export function holderPath(lockPath: string): string {
  return `${lockPath}.holder`;
}

/**
 * The holder recorded for the lock folder `lockPath` whose mtime is `lockMtimeMs`, or undefined
 * (none, unreadable, or not this lock's). The record is this lock's only when its mtime equals the
 * folder's: the holder stamps both alike when it takes the lock and at each refresh, and a record
 * left by a holder whose lock an older client took over since (re-creating the folder, which
 * leaves the record alone) no longer matches: that client took over a folder untouched for
 * {@link STALE_MS}, so the folder it made has an mtime at least that much later than the record's.
 */
function readHolder(lockPath: string, lockMtimeMs: number): LockHolder | undefined {
  try {
    const file = holderPath(lockPath);
    if (fs.statSync(file).mtime.getTime() !== lockMtimeMs) return undefined;
    const parsed = LockHolder.safeParse(JSON.parse(fs.readFileSync(file, "utf8")));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** The pid of the provably gone holder of the lock folder `lockPath` whose mtime is `lockMtimeMs`, if so. */
function gonePidOf(lockPath: string, lockMtimeMs: number): number | undefined {
  const holder = readHolder(lockPath, lockMtimeMs);
  return holder && holderState(holder) === "gone" ? holder.pid : undefined;
}

/**
 * Writes this process's record for the lock folder `lockPath` (atomically: never seen half written),
 * then stamps it with the folder's mtime: until then it counts as none (the age rule).
 */
async function recordHolder(lockPath: string): Promise<void> {
  try {
    const { mtime } = await fs.promises.stat(lockPath);
    await writeFileAtomic(holderPath(lockPath), JSON.stringify(thisHolder()) + "\n", 0o644, false);
    await fs.promises.utimes(holderPath(lockPath), mtime, mtime);
  } catch {
    // Not recorded (a full disk...): the lock still holds; if its holder is killed, it frees itself by age.
  }
}

/** A held lock: `release` frees it; `tookOverPid` is the pid of the ended holder whose lock was taken over at once, if so. */
export interface HeldLock {
  readonly release: () => Promise<void>;
  readonly tookOverPid: number | undefined;
}

/**
 * Takes the proper-lockfile lock folder `lockPath` (keyed by `key`) with its holder recorded beside
 * it ({@link holderPath}): a lock whose recorded holder is provably gone counts as stale at once
 * (taken over as proper-lockfile takes a stale one); any other keeps the age rule ({@link STALE_MS}).
 * Releasing it removes the record too.
 * @param options `retries`, `onCompromised`: as proper-lockfile's.
 * @throws proper-lockfile's errors (`code` ELOCKED: held by a process not provably gone).
 */
export async function lockWithHolder(
  key: string,
  lockPath: string,
  options: Pick<lockfile.LockOptions, "retries" | "onCompromised">,
): Promise<HeldLock> {
  let created = false; // this call created the lock folder: it is ours
  let recorded = false; // our record is written: refreshes stamp it
  let gonePid: number | undefined; // the holder found gone by the last stat before creating it
  let removedPid: number | undefined; // the gone holder whose lock was removed to take it over
  let tookOverPid: number | undefined;
  // proper-lockfile's file system, seen through the holder record: before the lock is ours, the stat
  // of a lock whose holder is gone reports it long untouched (proper-lockfile then removes it and
  // creates it anew); each refresh of the folder's mtime stamps the record alike; removing the lock
  // (release, exit) removes the record first.
  const holderFs = {
    ...fs,
    mkdir(path: string, callback: (err: NodeJS.ErrnoException | null) => void) {
      fs.mkdir(path, (err) => {
        if (path === lockPath && !created) {
          if (!err) [created, tookOverPid] = [true, removedPid];
          removedPid = undefined;
        }
        callback(err);
      });
    },
    stat(path: string, callback: (err: NodeJS.ErrnoException | null, stat?: fs.Stats) => void) {
      fs.stat(path, (err, stat) => {
        if (err || created || path !== lockPath) return callback(err, stat);
        gonePid = gonePidOf(lockPath, stat!.mtime.getTime());
        callback(null, gonePid === undefined ? stat : ({ ...stat, mtime: new Date(0) } as fs.Stats));
      });
    },
    utimes(path: string, atime: Date, mtime: Date, callback: (err: NodeJS.ErrnoException | null) => void) {
      if (path === lockPath && recorded) {
        try {
          fs.utimesSync(holderPath(lockPath), mtime, mtime); // first: killed in between, the two differ and the age rule holds
        } catch {
          // No record left to stamp: the age rule holds.
        }
      }
      fs.utimes(path, atime, mtime, callback);
    },
    rmdir(path: string, callback: (err: NodeJS.ErrnoException | null) => void) {
      if (path === lockPath && !created && gonePid !== undefined) {
        // Taking over a gone holder's lock: only if it is still that lock (another process may have
        // taken it over since our stat), then without its record.
        let mtimeMs: number | undefined;
        try {
          mtimeMs = fs.statSync(lockPath).mtime.getTime();
        } catch {
          // Removed meanwhile: proper-lockfile's mkdir decides.
        }
        if (mtimeMs !== undefined && gonePidOf(lockPath, mtimeMs) !== gonePid)
          return callback(Object.assign(new Error("Lock file is already being held"), { code: "ELOCKED" }));
        removedPid = gonePid;
      }
      if (path === lockPath) fs.rmSync(holderPath(lockPath), { force: true });
      fs.rmdir(path, callback);
    },
    rmdirSync(path: string) {
      if (path === lockPath) fs.rmSync(holderPath(lockPath), { force: true });
      fs.rmdirSync(path);
    },
  };
  const release = await lockfile.lock(key, { ...options, lockfilePath: lockPath, realpath: false, stale: STALE_MS, fs: holderFs });
  await recordHolder(lockPath);
  recorded = true;
  return { release, tookOverPid };
}

/** What a command says when it took over the lock of an ended command (pid `pid`). */
export function tookOverMessage(pid: number): string {
  return `took over the lock of a command that ended (pid ${pid})`;
}

/**
 * Takes the lock of `layout`'s folder (its state folder must exist), waiting up to `waitMs`
 * (default 0) while another command holds it (e.g. a sync of a running `teammem watch`, which
 * holds the lock only while it syncs). A lock left by a command that ended without freeing it
 * (killed) is taken over: at once when its holder is provably gone, saying so through `warn`.
 * @returns a function releasing it.
 * @throws ClientError when another command holds it, or when the lock was lost while held (this
 *   process stalled longer than {@link STALE_MS}, so another one may have taken over): then at release.
 */
export async function acquireLock(
  layout: Layout,
  { waitMs = 0, warn }: { waitMs?: number; warn?: (line: string) => void } = {},
): Promise<() => Promise<void>> {
  let lost: Error | undefined;
  let release: () => Promise<void>;
  try {
    let tookOverPid: number | undefined;
    ({ release, tookOverPid } = await lockWithHolder(layout.state, layout.lock, {
      retries: waitMs > 0 ? { retries: Math.ceil(waitMs / RETRY_EVERY_MS), factor: 1, minTimeout: RETRY_EVERY_MS, maxTimeout: RETRY_EVERY_MS } : 0,
      // The default throws from a timer; the command finishes its step and reports the loss instead.
      onCompromised: (err) => void (lost = err),
    }));
    if (tookOverPid !== undefined) warn?.(tookOverMessage(tookOverPid));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ELOCKED")
      throw new LockBusyError(
        `another teammem command is working on ${layout.root}; try again when it ends ` +
          `(a lock left by a killed command frees itself at once, or within ${STALE_MS / 1000} s if it ran on another machine)`,
      );
    throw err;
  }
  return async () => {
    if (lost) throw new ClientError(`the lock on ${layout.root} was lost while the command ran (${lost.message}); run \`teammem status\` to check the folder`);
    await release();
  };
}
