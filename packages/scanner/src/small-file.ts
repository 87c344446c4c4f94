/**
 * Reading a small file (a fingerprint key, a scanner config) whose size is not known in advance:
 * at most `maxBytes` are kept, so a huge file (a sparse file) costs `maxBytes` of memory and time,
 * not its size. Only a regular file is read: a FIFO, socket or device (`mkfifo key`, `/dev/zero`,
 * `--key-file <(…)`) is refused at once, never read, since opening or reading one can block forever
 * (a FIFO nobody writes to) or never end (a device). The file is opened without blocking and its
 * type checked on the open descriptor, so what is read is what was checked. Also the bounded read of
 * any descriptor ({@link readAtMost}: stdin).
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
 * Reads the regular file at `path` (a string, or bytes for a name that is not UTF-8), keeping at most
 * `maxBytes` bytes: a file that grows while it is read (a log being written) costs `maxBytes`, never
 * its growth.
 * @returns its bytes, or `"too-large"` when it holds more than `maxBytes` bytes.
 * @throws the file system's error (`NodeJS.ErrnoException`: ENOENT, EISDIR for a folder, EACCES,
 *   ...), or an error with `code` {@link NOT_REGULAR} and `kind` ("a FIFO (named pipe)", "a socket",
 *   "a device") for any other non-regular file, before reading a byte.
 */
export function readSmallFile(path: string | Buffer, maxBytes: number): SmallFile {
  // O_NONBLOCK: opening a FIFO without a writer returns at once instead of waiting for one.
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const stat = fstatSync(fd);
    if (stat.isDirectory()) throw Object.assign(new Error(`EISDIR: illegal operation on a directory, read '${String(path)}'`), { code: "EISDIR" });
    if (!stat.isFile()) throw Object.assign(new Error(`${String(path)}: ${kindOf(stat)}, not a regular file`), { code: NOT_REGULAR, kind: kindOf(stat) });
    if (stat.size > maxBytes) return "too-large";
    return readAtMost(fd, maxBytes, stat.size);
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads open descriptor `fd` (a file, or a pipe or terminal such as stdin: 0) to its end, but stops
 * as soon as it has more than `maxBytes` bytes: an endless stream (`yes | teammem-scan -`) costs
 * `maxBytes` of memory and reading time, not its length. Memory grows with what was read (a first
 * buffer of `sizeHint` + 1 bytes, the size expected, or 64 KiB, then 1 MiB ones), never to `maxBytes`
 * up front. A descriptor left non-blocking by another process (EAGAIN) is waited for, 10 ms at a time.
 * @returns the bytes, or `"too-large"` when more than `maxBytes` came.
 * @throws the read's error (`NodeJS.ErrnoException`: EISDIR, EIO, ...), other than EAGAIN.
 */
export function readAtMost(fd: number, maxBytes: number, sizeHint = 0): SmallFile {
  const full: Buffer[] = [];
  let total = 0;
  let buf = Buffer.allocUnsafe(Math.min(maxBytes + 1, Math.max(sizeHint + 1, 64 * 1024)));
  let used = 0;
  for (;;) {
    if (used === buf.length) {
      full.push(buf);
      buf = Buffer.allocUnsafe(Math.min(maxBytes + 1 - total, 1024 * 1024));
      used = 0;
    }
    let n: number;
    try {
      n = readSync(fd, buf, used, buf.length - used, null);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EAGAIN") throw e;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
      continue;
    }
    if (n === 0) return full.length === 0 ? buf.subarray(0, used) : Buffer.concat([...full, buf.subarray(0, used)], total);
    used += n;
    total += n;
    if (total > maxBytes) return "too-large";
  }
}
