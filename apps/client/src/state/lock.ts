/**
 * One command at a time per memory folder, through proper-lockfile: the lock is the folder
 * `.teammem/command.lock` (created with mkdir, atomic), its mtime refreshed while held. A lock not
 * refreshed for {@link STALE_MS} (its holder was killed) is taken over; a normal exit, Ctrl-C
 * included, removes it.
 */
import lockfile from "proper-lockfile";
import { ClientError } from "../errors.js";
import type { Layout } from "./layout.js";

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
 * Takes the lock of `layout`'s folder (its state folder must exist), waiting up to `waitMs`
 * (default 0) while another command holds it (e.g. a sync of a running `teammem watch`, which
 * holds the lock only while it syncs).
 * @returns a function releasing it.
 * @throws ClientError when another command holds it, or when the lock was lost while held (this
 *   process stalled longer than {@link STALE_MS}, so another one may have taken over): then at release.
 */
export async function acquireLock(layout: Layout, { waitMs = 0 }: { waitMs?: number } = {}): Promise<() => Promise<void>> {
  let lost: Error | undefined;
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(layout.state, {
      lockfilePath: layout.lock,
      realpath: false,
      stale: STALE_MS,
      retries: waitMs > 0 ? { retries: Math.ceil(waitMs / RETRY_EVERY_MS), factor: 1, minTimeout: RETRY_EVERY_MS, maxTimeout: RETRY_EVERY_MS } : 0,
      // The default throws from a timer; the command finishes its step and reports the loss instead.
      onCompromised: (err) => void (lost = err),
    });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ELOCKED")
      throw new LockBusyError(
        `another teammem command is working on ${layout.root}; try again when it ends ` +
          `(a lock left by a killed command frees itself within ${STALE_MS / 1000} s)`,
      );
    throw err;
  }
  return async () => {
    if (lost) throw new ClientError(`the lock on ${layout.root} was lost while the command ran (${lost.message}); run \`teammem status\` to check the folder`);
    await release();
  };
}
