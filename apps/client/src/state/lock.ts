/**
 * One command at a time per memory folder: `.teammem/lock` holds the pid of the holder, created
 * with O_EXCL. A lock whose process is gone (a crash) is taken over.
 */
import { open, readFile, unlink } from "node:fs/promises";
import { ClientError } from "../errors.js";
import type { Layout } from "./layout.js";

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Takes the lock of `layout`'s folder.
 * @returns a function releasing it.
 * @throws ClientError when a live process holds it.
 */
export async function acquireLock(layout: Layout): Promise<() => Promise<void>> {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const handle = await open(layout.lock, "wx", 0o600);
      await handle.writeFile(String(process.pid));
      await handle.close();
      return async () => {
        await unlink(layout.lock).catch(() => undefined);
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    const pid = Number((await readFile(layout.lock, "utf8").catch(() => "")).trim());
    if (Number.isInteger(pid) && pid > 0 && alive(pid))
      throw new ClientError(`another teammem command (pid ${pid}) is working on ${layout.root}; try again when it ends`);
    await unlink(layout.lock).catch(() => undefined);
  }
  throw new ClientError(`cannot take the lock ${layout.lock}`);
}
