/**
 * `npx teammem-server start` (also `npm exec`, `npm start`): npm runs the bin through `sh -c` and
 * forwards a SIGTERM only to that shell; dash dies of it and the server, reparented, kept running
 * (holding the port, the data folder's lock and the database). When npm launched this process
 * (it sets `npm_lifecycle_event`) and the process that started it goes away, the caller's stop is
 * requested: the same graceful shutdown as a SIGTERM. Anything not started by npm (a supervisor,
 * the Docker image, `node dist/cli.js start &`) is never watched.
 */

export interface LauncherWatchOptions {
  /** The environment; watched only when `npm_lifecycle_event` is set (npm ran us). */
  env: Readonly<Record<string, string | undefined>>;
  /** Reads the current parent pid (`() => process.ppid`: Node reads it again on every access). */
  parentPid: () => number;
  /** Called once, when the parent pid changes (the launcher exited and this process was reparented). */
  onGone: () => void;
  /** How often the parent pid is read, ms (default 500). */
  intervalMs?: number;
}

/**
 * Starts watching (see the module comment); the timer never keeps the process alive.
 * @returns a function that stops the watch (idempotent); a no-op when nothing is watched
 */
export function watchLauncher(options: LauncherWatchOptions): () => void {
  const first = options.parentPid();
  // Not launched by npm, or already reparented to init: nothing to follow.
  if (!options.env["npm_lifecycle_event"] || first <= 1) return () => undefined;
  const timer = setInterval(() => {
    if (options.parentPid() === first) return;
    clearInterval(timer);
    options.onGone();
  }, options.intervalMs ?? 500);
  timer.unref();
  return () => clearInterval(timer);
}
