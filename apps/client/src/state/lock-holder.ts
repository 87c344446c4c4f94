/**
 * Who holds a lock, and whether that process is provably gone: the record a lock keeps of its
 * holder (pid, host, and where the platform tells them, the process's start time, the boot id and
 * the pid namespace, which tell a reused pid or a reboot apart), and the check made from another
 * process. Only a holder on this host, in this pid namespace, can be proved gone; anything not
 * provable answers "unknown" and the caller keeps its age rule.
 */
import { readFileSync, readlinkSync } from "node:fs";
import { hostname } from "node:os";
import { z } from "zod";

/** A lock holder's identity, as stored (JSON) in the lock. */
export const LockHolder = z.object({
  pid: z.number().int().positive(),
  host: z.string(),
  /** Linux: the process's start time, clock ticks since boot (/proc/<pid>/stat field 22). */
  start: z.string().optional(),
  /** Linux: /proc/sys/kernel/random/boot_id. */
  boot: z.string().optional(),
  /** Linux: the pid namespace, e.g. `pid:[4026531836]` (pids of another container are not ours to check). */
  pidns: z.string().optional(),
});
export type LockHolder = z.infer<typeof LockHolder>;

/** Reads a small system file, or undefined where it does not exist (not Linux, no /proc). */
function readSystem(read: () => string): string | undefined {
  try {
    return read().trim() || undefined;
  } catch {
    return undefined;
  }
}

/** Linux: the start time of process `pid` (clock ticks since boot), or undefined (no such process, or no /proc). */
export function processStart(pid: number): string | undefined {
  const stat = readSystem(() => readFileSync(`/proc/${pid}/stat`, "utf8"));
  if (stat === undefined) return undefined;
  // "pid (comm) state ppid ...": comm may hold spaces and parentheses; fields resume after the last ")".
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return fields[19]; // field 22 of the line, the 20th after comm
}

function bootId(): string | undefined {
  return readSystem(() => readFileSync("/proc/sys/kernel/random/boot_id", "utf8"));
}

function pidNamespace(): string | undefined {
  return readSystem(() => readlinkSync("/proc/self/ns/pid"));
}

/** This process, as a lock records its holder. */
export function thisHolder(): LockHolder {
  const start = processStart(process.pid);
  const boot = bootId();
  const pidns = pidNamespace();
  return { pid: process.pid, host: hostname(), ...(start && { start }), ...(boot && { boot }), ...(pidns && { pidns }) };
}

/** Whether process `pid` exists (here: a signal 0 to it does not fail with ESRCH). */
function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== "ESRCH"; // EPERM: it exists, owned by someone else
  }
}

/**
 * Whether `holder` is provably gone: on this host, in this pid namespace, and either the machine
 * has rebooted since (boot id changed), no process has its pid, or the process with its pid started
 * at another time (the pid was reused).
 * @returns "gone", or "unknown" (alive, another host or container, or not provable here).
 */
export function holderState(holder: LockHolder): "gone" | "unknown" {
  if (holder.host !== hostname()) return "unknown"; // a shared folder: its processes are not ours to see
  const pidns = pidNamespace();
  if (holder.pidns !== pidns) return "unknown"; // another container (or one side cannot tell)
  const boot = bootId();
  if (holder.boot !== undefined && boot !== undefined && holder.boot !== boot) return "gone";
  if (holder.boot !== boot) return "unknown";
  if (!processExists(holder.pid)) return "gone";
  if (holder.start === undefined) return "unknown"; // a live pid we cannot tell from a reused one
  const start = processStart(holder.pid);
  if (start === undefined) return processExists(holder.pid) ? "unknown" : "gone"; // it may just have ended
  return start === holder.start ? "unknown" : "gone";
}
