/**
 * `teammem sync` and `push` stopped by SIGINT (Ctrl-C) or SIGTERM: one line on stderr says what
 * stays queued (a count, never a path or content), then the process ends by that same signal, at
 * once (a shell reports 130 or 143, and a script running the command stops with it, as it would
 * for any interrupted program). Nothing is lost: the outbox is durable, the command lock is removed
 * on the way out (proper-lockfile's exit hook), an operation whose reply never came is sent again
 * with its opId (the server answers it with the stored result), and a change not queued yet is
 * found again by the next sync's walk.
 */
import { outboxSizeSync } from "../state/outbox.js";
import type { Layout } from "../state/layout.js";
import type { Io } from "./common.js";

const SIGNALS = ["SIGINT", "SIGTERM"] as const;

/** The line printed on `signal` with `queued` operations in the outbox; `next` names what sends them ("sync", "sync or push"). */
export function interruptedLine(signal: NodeJS.Signals, queued: number, next: string): string {
  return queued === 0
    ? `teammem: interrupted (${signal}): nothing stays queued; the next ${next} finds your local changes again\n`
    : `teammem: interrupted (${signal}): ${queued} change(s) stay queued; the next ${next} sends them\n`;
}

/**
 * Until the returned function is called, SIGINT and SIGTERM print {@link interruptedLine} on `io`'s
 * stderr and end the process by the signal received (the handler is removed, then the signal sent
 * again: the default action, or proper-lockfile's exit hook first when a lock is held).
 */
export function sayWhatStaysQueuedOnSignal(layout: Layout, io: Io, next: string): () => void {
  const remove = () => {
    for (const s of SIGNALS) process.off(s, onSignal);
  };
  function onSignal(signal: NodeJS.Signals): void {
    remove();
    let queued = 0;
    try {
      queued = outboxSizeSync(layout);
    } catch {
      // The outbox cannot be listed: the count is unknown, the exit must not wait for it.
      queued = -1;
    }
    io.stderr(
      queued < 0 ? `teammem: interrupted (${signal}): what was queued stays queued; the next ${next} sends it\n` : interruptedLine(signal, queued, next),
    );
    process.kill(process.pid, signal);
  }
  for (const s of SIGNALS) process.on(s, onSignal);
  return remove;
}
