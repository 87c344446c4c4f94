/**
 * Reading a small file (a fingerprint key, a scanner config) whose size is not known in advance:
 * at most `maxBytes` are kept, so a huge file (a sparse file) costs `maxBytes` of memory and time,
 * not its size. Only a regular file is read: a FIFO, socket or device (`mkfifo key`, `/dev/zero`,
 * `--key-file <(…)`) is refused at once, never read, since opening or reading one can block forever
 * (a FIFO nobody writes to) or never end (a device). The file is opened without blocking and its
 * type checked on the open descriptor, so what is read is what was checked.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";

/** The file's bytes, or `"too-large"` when it holds more than `maxBytes`. */
export type SmallFile = Buffer | "too-large";

/** The `code` of the error {@link readSmallFile} throws for a path that is not a regular file or folder. */
export const NOT_REGULAR = "ENOTREG";

/** A short name of the kind of a non-regular file, for messages ("a FIFO (named pipe)"). */
function kindOf(stat: ReturnType<typeof fstatSync>): string {
  if (stat.isFIFO()) return "a FIFO (named pipe)";
  if (stat.isSocket()) return "a socket";
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return "a device";
  return "not a regular file";
}

/**
 * Reads the regular file at `path`, keeping at most `maxBytes` bytes.
 * @returns its bytes, or `"too-large"` when it holds more than `maxBytes` bytes.
 * @throws the file system's error (`NodeJS.ErrnoException`: ENOENT, EISDIR for a folder, EACCES,
 *   ...), or an error with `code` {@link NOT_REGULAR} and `kind` ("a FIFO (named pipe)", "a socket",
 *   "a device") for any other non-regular file, before reading a byte.
 */
export function readSmallFile(path: string, maxBytes: number): SmallFile {
  // O_NONBLOCK: opening a FIFO without a writer returns at once instead of waiting for one.
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const stat = fstatSync(fd);
    if (stat.isDirectory()) throw Object.assign(new Error(`EISDIR: illegal operation on a directory, read '${path}'`), { code: "EISDIR" });
    if (!stat.isFile()) throw Object.assign(new Error(`${path}: ${kindOf(stat)}, not a regular file`), { code: NOT_REGULAR, kind: kindOf(stat) });
    const chunks: Buffer[] = [];
    let total = 0;
    const chunk = Buffer.allocUnsafe(Math.min(maxBytes + 1, 64 * 1024));
    for (;;) {
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) return Buffer.concat(chunks, total);
      total += n;
      if (total > maxBytes) return "too-large";
      chunks.push(Buffer.from(chunk.subarray(0, n)));
    }
  } finally {
    closeSync(fd);
  }
}
