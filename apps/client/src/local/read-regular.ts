/**
 * Reading a file the user may have replaced with something else: opened without blocking and
 * without following a symlink, so a FIFO (or a device) never hangs the command (try17 M3).
 */
import { constants } from "node:fs";
import { open } from "node:fs/promises";

/** Thrown by {@link readRegularFile} when the path is not a regular file (FIFO, socket, device, folder). */
export class NotRegularFile extends Error {
  constructor(readonly path: string) {
    super(`${path}: not a regular file`);
  }
}

/**
 * The bytes of the regular file `path` (absolute).
 * @throws NotRegularFile when it is a FIFO, socket, device or folder (the open does not block);
 *   the open's error (ENOENT, ELOOP for a symlink, EACCES...) otherwise.
 */
export async function readRegularFile(path: string): Promise<Buffer> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    if (!(await handle.stat()).isFile()) throw new NotRegularFile(path);
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}
