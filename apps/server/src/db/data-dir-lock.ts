/**
 * One process per embedded (PGlite) data folder, through proper-lockfile: the lock is the folder
 * `<dataDir>/teammem-server.lock` (created with mkdir, atomic), its mtime refreshed every 15 s
 * while held; its holder's details (pid, host, purpose, URL) sit beside it in
 * `teammem-server.lock.json` for the message another process prints. A lock not refreshed for
 * {@link STALE_MS} (its holder was killed or its machine stopped) is taken over; a normal exit
 * removes it, Ctrl-C included.
 */
import { lstat, readFile, rm, unlink, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import lockfile from "proper-lockfile";

/** Name of the lock (a folder) inside the data folder. */
export const LOCK_NAME = "teammem-server.lock";
/** Name of the holder's details (JSON {@link LockHolder}) beside the lock. */
export const HOLDER_NAME = "teammem-server.lock.json";
/** A lock whose mtime is older than this (ms) belongs to a process that is gone. */
const STALE_MS = 30_000;

/** What the holder of a data folder says about itself. */
export interface LockHolder {
  pid: number;
  /** The machine it runs on (`os.hostname()`): a pid means nothing on another one. */
  host?: string;
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
    /** `null`: the holder wrote no details (it is just starting, or is not a teammem-server). */
    readonly holder: LockHolder | null,
  ) {
    super(`the data folder ${dataDir} is in use by ${describeHolder(holder)}`);
    this.name = "DataDirLockedError";
  }
}

function describeHolder(holder: LockHolder | null): string {
  if (!holder) return "another process";
  const who = holder.purpose === "server" ? "a running teammem-server" : `teammem-server ${holder.purpose}`;
  const where = holder.host && holder.host !== hostname() ? ` on ${holder.host}` : "";
  return `${who} (pid ${holder.pid}${where}${holder.url ? `, ${holder.url}` : ""})`;
}

export interface DataDirLock {
  /** Rewrites the holder's details (e.g. the URL once the server listens). */
  update(patch: Partial<Pick<LockHolder, "url">>): Promise<void>;
  /** Removes the lock and its details. Idempotent. @throws Error when the lock was lost while held. */
  release(): Promise<void>;
  /**
   * Settles when the lock is lost while held (this process stalled past {@link STALE_MS}, or
   * someone removed the lock): another process may open the folder now, so the holder must stop.
   */
  readonly lost: Promise<Error>;
}

async function readHolder(dataDir: string): Promise<LockHolder | null> {
  try {
    const parsed = JSON.parse(await readFile(join(dataDir, HOLDER_NAME), "utf8")) as LockHolder;
    return typeof parsed.pid === "number" && typeof parsed.purpose === "string" ? parsed : null;
  } catch {
    return null;
  }
}

/** Whether `holder` is a live process: unknown on another machine, so assumed live there. */
function holderAlive(holder: LockHolder): boolean {
  if (holder.host && holder.host !== hostname()) return true;
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * The lock of an older teammem-server (a plain JSON file of the lock's name, holding the same
 * details): refused while its pid lives, removed when it is gone.
 */
async function clearLegacyLock(dataDir: string): Promise<void> {
  const path = join(dataDir, LOCK_NAME);
  const stat = await lstat(path).catch(() => null);
  if (!stat?.isFile()) return;
  let holder: LockHolder | null = null;
  try {
    holder = JSON.parse(await readFile(path, "utf8")) as LockHolder;
  } catch {
    /* unreadable: nobody to wait for */
  }
  if (holder && typeof holder.pid === "number" && holderAlive(holder)) throw new DataDirLockedError(dataDir, holder);
  await unlink(path).catch(() => undefined);
}

/**
 * Takes the lock through `take(retries)`: at once, or after a dead holder's lock went stale.
 * @throws DataDirLockedError when a live process (or one that wrote no details) holds it.
 */
async function takeOrWait(dataDir: string, take: (retries: number) => Promise<() => Promise<void>>): Promise<() => Promise<void>> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await take(0);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ELOCKED") throw err;
    }
    const holder = await readHolder(dataDir);
    if (!holder) {
      // The holder is between taking the lock and writing its details, or between removing them
      // and releasing it: look again shortly, then name no one.
      if (attempt >= 5) throw new DataDirLockedError(dataDir, null);
      await new Promise((r) => setTimeout(r, 200));
      continue;
    }
    if (holderAlive(holder)) throw new DataDirLockedError(dataDir, holder);
    // Its process is gone: the lock stops being refreshed and goes stale within STALE_MS.
    try {
      return await take(Math.ceil(STALE_MS / 500) + 4);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ELOCKED") throw new DataDirLockedError(dataDir, await readHolder(dataDir));
      throw err;
    }
  }
}

/**
 * Takes the lock of the embedded data folder `dataDir` (which must exist) for this process as
 * `purpose`. When the holder is a live process, refuses at once; when its process is gone (a
 * crash), waits until its lock goes stale (at most {@link STALE_MS}) and takes it over.
 * @throws DataDirLockedError when a live process holds it.
 */
export async function acquireDataDirLock(dataDir: string, purpose: string): Promise<DataDirLock> {
  await clearLegacyLock(dataDir);
  let lostError: (err: Error) => void = () => undefined;
  const lost = new Promise<Error>((resolve) => (lostError = resolve));
  let compromised: Error | undefined;
  const take = (retries: number) =>
    lockfile.lock(dataDir, {
      lockfilePath: join(dataDir, LOCK_NAME),
      realpath: false,
      stale: STALE_MS,
      retries: retries === 0 ? 0 : { retries, minTimeout: 500, maxTimeout: 500, factor: 1 },
      // The default throws from a timer; the holder hears it through `lost` and stops instead.
      onCompromised: (err) => {
        compromised = err;
        lostError(err);
      },
    });
  const unlock = await takeOrWait(dataDir, take);
  let holder: LockHolder = { pid: process.pid, host: hostname(), purpose, startedAt: new Date().toISOString() };
  const holderPath = join(dataDir, HOLDER_NAME);
  const writeHolder = () => writeFile(holderPath, JSON.stringify(holder) + "\n", { mode: 0o600 });
  try {
    await writeHolder();
  } catch (err) {
    await unlock().catch(() => undefined);
    throw err;
  }
  let released = false;
  return {
    lost,
    update: async (patch) => {
      holder = { ...holder, ...patch };
      if (!released && !compromised) await writeHolder();
    },
    release: async () => {
      if (released) return;
      released = true;
      if (compromised) throw new Error(`the lock of ${dataDir} was lost while held (${compromised.message})`);
      await rm(holderPath, { force: true });
      await unlock();
    },
  };
}
