/**
 * Reading a small file (a fingerprint key, a scanner config) whose size is not known in advance:
 * at most `maxBytes` are kept, so a huge or endless file (a sparse file, `/dev/zero`) costs
 * `maxBytes` of memory and time, not its size. Pipes work (`--key-file <(…)`: their size is
 * unknown until read), and a file named by the user is read as it is (no stat check first, so a
 * file that changes in between is read once).
 */
import { closeSync, openSync, readSync } from "node:fs";

/** The file's bytes, or `"too-large"` when it holds more than `maxBytes`. */
export type SmallFile = Buffer | "too-large";

/**
 * Reads the file at `path`, keeping at most `maxBytes` bytes.
 * @returns its bytes, or `"too-large"` when it holds more than `maxBytes` bytes.
 * @throws the file system's error (`NodeJS.ErrnoException`: ENOENT, EISDIR, EACCES, ...).
 */
export function readSmallFile(path: string, maxBytes: number): SmallFile {
  const fd = openSync(path, "r");
  try {
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
