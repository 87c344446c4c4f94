/**
 * The stat cache of the team scope, as git's index keeps one: for a file read and hashed, its size,
 * mtime, ctime (nanoseconds) and inode are kept with its base, so the next walk takes a file whose
 * lstat still shows exactly those for unchanged without reading, hashing or scanning it.
 *
 * Racy-timestamp safe: a stat is kept only when the file's mtime AND ctime are both at least
 * {@link RACY_MARGIN_NS} older than the start of the walk that read it. Any later write then gives
 * the file a ctime (which no one can set back) at or after that start, so another stat; a file
 * written shortly before or during the walk (same timestamp tick as the read) is not kept and is
 * hashed again next time, like git re-hashes an entry whose mtime is not older than its index.
 * The ctime matters as much as the mtime: `cp -p`, `rsync -t`, `touch -d`, `tar -x` set the mtime
 * back but leave a fresh ctime, and on a file system with whole-second timestamps (ext4 with
 * 128-byte inodes, ext3, HFS+, FAT) a second such copy of the same size within that second had the
 * very stat kept by the sync in between, so its content was never sent.
 */
import type { BigIntStats } from "node:fs";
import { z } from "zod";

/** An integer as decimal digits (a time before 1970 is negative). */
const Decimal = z.string().regex(/^-?\d{1,30}$/);

export const FileStat = z.object({
  /** Bytes. */
  size: z.number().int().nonnegative(),
  /** Nanoseconds since the epoch, as decimal strings (more than 2^53). */
  mtimeNs: Decimal,
  ctimeNs: Decimal,
  /** Inode number, decimal (may exceed 2^53). */
  ino: Decimal,
});
export type FileStat = z.infer<typeof FileStat>;

/**
 * How much older than the walk's start a file's mtime must be for its stat to be kept: 2 s covers
 * the filesystem's timestamp granularity (kernel clock ticks; 2 s on FAT) and small skews between
 * the clock files are stamped with and the process's.
 */
export const RACY_MARGIN_NS = 2_000_000_000n;

/** The stat-cache fields of `st` (from `lstat`/`fstat` with `{ bigint: true }`). */
export function fileStatOf(st: BigIntStats): FileStat {
  return { size: Number(st.size), mtimeNs: String(st.mtimeNs), ctimeNs: String(st.ctimeNs), ino: String(st.ino) };
}

/** Whether `st` shows exactly the file `known` was taken from. */
export function sameFileStat(known: FileStat, st: BigIntStats): boolean {
  return equalFileStats(known, fileStatOf(st));
}

/** Whether two kept stats are the same (size, mtime, ctime, inode). */
export function equalFileStats(a: FileStat, b: FileStat): boolean {
  return a.size === b.size && a.mtimeNs === b.mtimeNs && a.ctimeNs === b.ctimeNs && a.ino === b.ino;
}

/** Whether `stat`, taken by a walk started at `walkStartNs` (see {@link nowNs}), may be kept: its mtime and ctime are both older than the racy margin (see the module comment). */
export function isSettled(stat: FileStat, walkStartNs: bigint): boolean {
  return BigInt(stat.mtimeNs) + RACY_MARGIN_NS < walkStartNs && BigInt(stat.ctimeNs) + RACY_MARGIN_NS < walkStartNs;
}

/** Wall-clock now in nanoseconds since the epoch (millisecond resolution), the clock file times are compared with. */
export function nowNs(): bigint {
  return BigInt(Date.now()) * 1_000_000n;
}
