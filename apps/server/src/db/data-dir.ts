/**
 * The embedded database's folder, made ready before its lock is taken: created 0700 when missing;
 * refused, with one sentence naming the folder and what to do, when it is a file, cannot be
 * created, or holds other files and no embedded database (PGlite would write its ~20 folders
 * between them and narrow the folder's mode: a `--data-dir` pointed at a memory or home folder by
 * mistake). A folder holding only this server's lock and its holder file (a crash before the first start
 * completed)
 * or a file system's lost+found (a volume's root) counts as empty.
 */
import { mkdir, open, readdir, rm, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { HOLDER_NAME, LOCK_NAME } from "./data-dir-lock.js";

/** The file PostgreSQL (and PGlite) writes first in a database folder. */
const DATABASE_MARKER = "PG_VERSION";
const HINT = "choose another with --data-dir or TEAMMEM_DATA_DIR";

/** Why a file-system call on the folder's path failed, in words where the code is a common one. */
function reason(e: NodeJS.ErrnoException): string {
  if (e.code === "ENOTDIR" || e.code === "EEXIST") return "a file stands where a folder of its path should be";
  if (e.code === "EACCES" || e.code === "EPERM") return "permission denied (the server runs as another user than the folder's owner?)";
  if (e.code === "EROFS") return "the file system is read-only";
  if (e.code === "ENOENT") return "the file system there does not allow creating it (ENOENT: /proc, /sys?)";
  return e.code ?? e.message;
}

/**
 * `mkdir -p dir` one level at a time, each new folder 0700. Not `mkdir(dir, { recursive: true })`:
 * Node's recursive mkdir never returns for a path under /proc (mkdir there fails with ENOENT
 * though the parent exists, and it retries the parent forever).
 */
async function makeFolders(dir: string): Promise<void> {
  const missing: string[] = [];
  for (let at = dir; ; at = dirname(at)) {
    const found = await stat(at).catch((e: NodeJS.ErrnoException) => {
      if (e.code === "ENOENT") return null;
      throw e;
    });
    if (found) break;
    missing.push(at);
    if (dirname(at) === at) break;
  }
  for (const folder of missing.reverse()) {
    await mkdir(folder, { mode: 0o700 }).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== "EEXIST") throw e; // made meanwhile by another process: fine when it is a folder (checked next)
    });
  }
}

/** Creates and removes a file in `dir`: a folder the server cannot write in fails here, not inside PGlite. */
async function probeWrite(dir: string): Promise<void> {
  const probe = join(dir, `.teammem-write-probe-${process.pid}`);
  const handle = await open(probe, "wx", 0o600);
  await handle.close();
  await rm(probe, { force: true });
}

/** A data folder that cannot be used; the message says why and names the folder. */
export class DataDirError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DataDirError";
  }
}

/**
 * Creates `dir` (absolute) 0700 if missing, or checks it is a folder that is empty or holds an
 * embedded database; then checks that a file can be created in it.
 * @throws DataDirError when it is not, cannot be created (permissions, a file on the path, a
 *   folder such as /proc where nothing can be created) or cannot be written in (read-only)
 */
export async function prepareDataDir(dir: string): Promise<void> {
  const found = await stat(dir).catch((e: NodeJS.ErrnoException) => {
    if (e.code === "ENOENT") return null;
    throw new DataDirError(`cannot use the data folder ${dir}: ${reason(e)}; ${HINT}`);
  });
  if (found && !found.isDirectory()) throw new DataDirError(`the data folder ${dir} is a file, not a folder; ${HINT}`);
  if (!found) {
    try {
      await makeFolders(dir);
    } catch (e) {
      throw new DataDirError(`cannot create the data folder ${dir}: ${reason(e as NodeJS.ErrnoException)}; ${HINT}`);
    }
  } else {
    const names = await readdir(dir).catch((e: NodeJS.ErrnoException) => {
      throw new DataDirError(`cannot use the data folder ${dir}: ${reason(e)}; ${HINT}`);
    });
    const others = names.filter((n) => n !== LOCK_NAME && n !== HOLDER_NAME && n !== "lost+found");
    if (!names.includes(DATABASE_MARKER) && others.length > 0) {
      const shown = others.slice(0, 3).join(", ") + (others.length > 3 ? `, … (${others.length} in all)` : "");
      throw new DataDirError(`the data folder ${dir} holds other files (${shown}) and no embedded database: give a new or empty folder; ${HINT}`);
    }
  }
  try {
    await probeWrite(dir);
  } catch (e) {
    throw new DataDirError(`cannot write in the data folder ${dir}: ${reason(e as NodeJS.ErrnoException)}; ${HINT}`);
  }
}
