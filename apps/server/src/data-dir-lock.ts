import { open, readFile, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";

/** File name of the lock inside an embedded database's data folder. */
export const LOCK_FILE = "teammem-server.lock";

/** What a lock file says about its holder. */
export interface LockHolder {
  pid: number;
  /** `server` for `teammem-server start`, else the admin command's name. */
  purpose: string;
  /** Base URL of the running server, once it listens (e.g. http://127.0.0.1:8080). */
  url?: string;
  startedAt: string;
}

/** The data folder is held by another live process (a running server or an admin command). */
export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: LockHolder,
  ) {
    super(`the data folder ${dataDir} is in use by ${holder.purpose === "server" ? "a running teammem-server" : `teammem-server ${holder.purpose}`} (pid ${holder.pid}${holder.url ? `, ${holder.url}` : ""})`);
    this.name = "DataDirLockedError";
  }
}

export interface DataDirLock {
  /** Rewrites the holder's details (e.g. the URL once the server listens). */
  update(patch: Partial<Omit<LockHolder, "pid">>): Promise<void>;
  /** Removes the lock file if it is still ours. Idempotent. */
  release(): Promise<void>;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

async function readHolder(path: string): Promise<LockHolder | null> {
  try {
    const parsed = JSON.parse(await readFile(path, "utf8")) as LockHolder;
    return typeof parsed.pid === "number" ? parsed : null;
  } catch {
    return null;
  }
}

/**
 * Takes the one-process lock of an embedded (PGlite) data folder: `<dataDir>/teammem-server.lock`
 * created exclusively (`wx`) holding JSON `{ pid, purpose, url?, startedAt }`. PGlite admits a
 * single process per folder, so every process opening the folder takes this lock first. A lock
 * whose pid is dead (a crashed server) is taken over. The folder must exist.
 * @throws DataDirLockedError when a live process holds it.
 */
export async function acquireDataDirLock(dataDir: string, purpose: string): Promise<DataDirLock> {
  const path = join(dataDir, LOCK_FILE);
  let holder: LockHolder = { pid: process.pid, purpose, startedAt: new Date().toISOString() };
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      const file = await open(path, "wx");
      try {
        await file.writeFile(JSON.stringify(holder) + "\n");
      } finally {
        await file.close();
      }
      let released = false;
      return {
        update: async (patch) => {
          holder = { ...holder, ...patch };
          if (!released) await writeFile(path, JSON.stringify(holder) + "\n");
        },
        release: async () => {
          if (released) return;
          released = true;
          if ((await readHolder(path))?.pid === process.pid) await unlink(path).catch(() => undefined);
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    const current = await readHolder(path);
    if (current === null) {
      // Being written by a process that just created it, or garbage: give it a moment, then take over.
      await new Promise((r) => setTimeout(r, 200));
      if ((await readHolder(path)) === null) await unlink(path).catch(() => undefined);
      continue;
    }
    if (current.pid !== process.pid && alive(current.pid)) throw new DataDirLockedError(dataDir, current);
    await unlink(path).catch(() => undefined); // stale: its process is gone
  }
  throw new Error(`could not take the lock ${path}`);
}
