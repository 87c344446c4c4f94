/**
 * Reading and writing single files of the team scope, never through a symlink: every folder
 * between `team/` and the file must be a real folder and the file a regular file (opened with
 * O_NOFOLLOW, so a swap to a symlink after the check is refused too). Nothing here touches a path
 * outside `team/`: entry paths are checked with `checkEntryPath` by the callers.
 */
import { constants } from "node:fs";
import { access, lstat, mkdir, open, rmdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { sha256Hex } from "@teammem/protocol";
import { decodeUtf16WithBom } from "@teammem/scanner";
import { fsyncDir, unlinkDurable, writeFileAtomic } from "../state/atomic.js";
import { displayPath, type Layout } from "../state/layout.js";
import { fileStatOf, type FileStat } from "./file-stat.js";

/** Files larger than this are not read (far above any server's entry limit). */
export const MAX_LOCAL_FILE_BYTES = 8 * 1024 * 1024;

/**
 * Why a path of `team/` is not read or replaced: `reason` for people (e.g. "symlink (not
 * followed)"); `symlink` when a symlink is on the way (the file itself or a folder above it).
 */
export interface Unsafe {
  readonly reason: string;
  readonly symlink: boolean;
}

const unsafe = (reason: string, symlink = false): Unsafe => ({ reason, symlink });

type LocalFile =
  | { readonly kind: "absent" }
  /** `stat`: of the open file, taken before reading it (for the stat cache, `file-stat.ts`). */
  | { readonly kind: "file"; readonly content: string; readonly sha256: string; readonly stat: FileStat }
  /**
   * Exists but must not be read or replaced: symlink, folder, device, not UTF-8, too large...
   * `notRegular`: a FIFO, socket, device or folder (never opened blocking).
   */
  | ({ readonly kind: "unsafe"; readonly notRegular?: true } & Unsafe);

/** An unsafe file: `what` says whether a symlink, or something not a regular file, is why. */
const unsafeFile = (reason: string, what: "symlink" | "not regular" | "content" = "content"): LocalFile =>
  what === "not regular" ? { kind: "unsafe", reason, symlink: false, notRegular: true } : { kind: "unsafe", reason, symlink: what === "symlink" };

const errno = (err: unknown): string | undefined => (err as NodeJS.ErrnoException).code;

/**
 * Results of checking folders of `team/` (by absolute path: "ok", "absent" or why it is unsafe),
 * kept by one walk that reads many files of the same folders (see {@link readTeamFile}); made
 * with {@link parentChecks}, dropped with the walk.
 */
export type ParentChecks = Map<string, Promise<"ok" | "absent" | Unsafe>>;

export function parentChecks(): ParentChecks {
  return new Map();
}

/** One folder of the chain (the `i`-th from `team/`): "ok", "absent" (not created) or why it is unsafe. */
async function checkFolder(dir: string, i: number, create: boolean): Promise<"ok" | "absent" | Unsafe> {
  try {
    const st = await lstat(dir);
    if (st.isSymbolicLink()) return unsafe(`${i === 0 ? "team" : "a parent folder"} is a symlink (not followed)`, true);
    if (!st.isDirectory()) return unsafe("a parent is not a folder");
  } catch (err) {
    if (errno(err) !== "ENOENT") throw err;
    if (!create) return "absent";
    await mkdir(dir);
    await fsyncDir(dirname(dir));
  }
  return "ok";
}

/**
 * Checks the folders from `team/` down to the parent of `entryPath`; "absent" if one is missing.
 * With `checked` (read-only checks of one walk), each folder is looked at once per walk.
 */
async function checkParents(layout: Layout, entryPath: string, create: boolean, checked?: ParentChecks): Promise<"ok" | "absent" | Unsafe> {
  const segments = entryPath.split("/").slice(0, -1);
  let dir = layout.team;
  for (let i = 0; i <= segments.length; i++) {
    let result: Promise<"ok" | "absent" | Unsafe>;
    if (checked && !create) {
      const known = checked.get(dir);
      result = known ?? checkFolder(dir, i, false);
      if (!known) checked.set(dir, result);
    } else result = checkFolder(dir, i, create);
    const outcome = await result;
    if (outcome !== "ok") return outcome;
    const next = segments[i];
    if (next !== undefined) dir = join(dir, next);
  }
  return "ok";
}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * Reads `team/<entryPath>` if it is a regular UTF-8 (or UTF-16 with a byte order mark) file reached without symlinks.
 * @param checked folder checks shared by the reads of one walk (see {@link ParentChecks}); default: every folder checked now.
 */
export async function readTeamFile(layout: Layout, entryPath: string, checked?: ParentChecks): Promise<LocalFile> {
  const parents = await checkParents(layout, entryPath, false, checked);
  if (parents === "absent") return { kind: "absent" };
  if (parents !== "ok") return { kind: "unsafe", ...parents };
  let handle;
  try {
    handle = await open(join(layout.team, entryPath), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    if (errno(err) === "ENOENT") return { kind: "absent" };
    if (errno(err) === "ELOOP") return unsafeFile("symlink (not followed)", "symlink");
    if (errno(err) === "ENOTDIR") return unsafeFile("a parent is not a folder");
    if (errno(err) === "ENXIO") return unsafeFile("not a regular file", "not regular"); // a socket cannot be opened
    throw err;
  }
  try {
    const st = await handle.stat({ bigint: true });
    if (st.isDirectory()) return unsafeFile("is a folder", "not regular");
    if (!st.isFile()) return unsafeFile("not a regular file", "not regular");
    // Another name for the same bytes may live outside team/ (a private note linked in "to keep one copy").
    if (st.nlink > 1n) return unsafeFile("hard link (not synced: it may share content with a private file)");
    if (Number(st.size) > MAX_LOCAL_FILE_BYTES) return unsafeFile(`larger than ${MAX_LOCAL_FILE_BYTES} bytes`);
    const bytes = await handle.readFile();
    // UTF-16 with a byte order mark (Windows editors) is text too: decoded, so it is scanned and
    // synced like UTF-8 rather than skipped (issue 10); a teammate receives it as UTF-8.
    let content = decodeUtf16WithBom(bytes)?.text;
    try {
      content ??= utf8.decode(bytes);
    } catch {
      return unsafeFile("not UTF-8 text");
    }
    // A NUL byte makes it binary (as git decides); the server refuses such content (PostgreSQL text
    // cannot hold it), so it is skipped here like other binary files instead of sent and refused.
    if (content.includes("\u0000")) return unsafeFile("not text (holds a NUL byte)");
    return { kind: "file", content, sha256: sha256Hex(content), stat: fileStatOf(st) };
  } finally {
    await handle.close();
  }
}

/** Thrown when a server change cannot be written because the local path is unsafe. */
export class UnsafeLocalPath extends Error {
  constructor(
    readonly entryPath: string,
    readonly reason: string,
  ) {
    super(`${displayPath(entryPath)}: ${reason}`);
  }
}

/**
 * The local content a decision to replace a team file was based on: the file is replaced (or
 * deleted) only if it still holds exactly that when the replace happens. Checked after the new
 * content is on disk, right before the rename (or unlink), so an edit by the user or an agent
 * written while the pull decided and wrote is never overwritten: the caller merges it instead.
 */
export interface ReplaceGuard {
  /** sha256 of the content the decision read (null: the file was absent). */
  readonly expectSha256: string | null;
  /** Test seam: runs right before the re-check (a test writes the file here to order the race). */
  readonly beforeCheck?: (entryPath: string) => Promise<void>;
}

/** Whether `team/<entryPath>` still holds what `guard` expects (an unsafe file never does). */
async function stillExpected(layout: Layout, entryPath: string, guard: ReplaceGuard): Promise<boolean> {
  await guard.beforeCheck?.(entryPath);
  const now = await readTeamFile(layout, entryPath);
  if (now.kind === "unsafe") return false;
  return (now.kind === "file" ? now.sha256 : null) === guard.expectSha256;
}

/**
 * Atomically writes `content` to `team/<entryPath>`, creating folders as needed.
 * With `guard`: only if the file still holds what the guard expects right before the rename.
 * @returns false when the guard found the file changed (nothing was replaced), else true.
 * @throws UnsafeLocalPath when a parent is a symlink or not a folder, or the target is not a regular file.
 */
export async function writeTeamFile(layout: Layout, entryPath: string, content: string, guard?: ReplaceGuard): Promise<boolean> {
  try {
    return await writeTeamFileIn(layout, entryPath, content, guard);
  } catch (err) {
    throw await unwritableFolder(layout, entryPath, err);
  }
}

/**
 * `err` as an {@link UnsafeLocalPath} naming the folder below `team/` that refused the write or
 * delete of `team/<entryPath>` (EACCES, EPERM: its owner or mode), so that one read-only folder
 * keeps only its own files "not written" instead of stopping the pull; `err` unchanged otherwise
 * (another error, or `team/` itself refused: nothing could be written, the sync stops).
 */
async function unwritableFolder(layout: Layout, entryPath: string, err: unknown): Promise<unknown> {
  const code = errno(err);
  if (code !== "EACCES" && code !== "EPERM") return err;
  for (let dir = dirname(join(layout.team, entryPath)); dir.startsWith(layout.team + "/"); dir = dirname(dir)) {
    try {
      await access(dir, constants.W_OK | constants.X_OK);
      return err; // this folder is writable, and the ones above it are not what refused
    } catch (e) {
      if (errno(e) === "ENOENT") continue; // not created yet: its parent refused
      const shown = displayPath(dir.slice(layout.team.length + 1));
      return new UnsafeLocalPath(entryPath, `folder ${shown}/ is not writable (permission denied, ${code}): check its owner and mode`);
    }
  }
  return err;
}

async function writeTeamFileIn(layout: Layout, entryPath: string, content: string, guard?: ReplaceGuard): Promise<boolean> {
  const parents = await checkParents(layout, entryPath, true);
  // Never "absent": missing folders are created.
  if (parents !== "ok") throw new UnsafeLocalPath(entryPath, parents === "absent" ? "a parent folder is missing" : parents.reason);
  const target = join(layout.team, entryPath);
  try {
    const st = await lstat(target);
    if (!st.isFile()) throw new UnsafeLocalPath(entryPath, st.isSymbolicLink() ? "symlink (not replaced)" : "not a regular file");
  } catch (err) {
    if (err instanceof UnsafeLocalPath) throw err;
    if (errno(err) !== "ENOENT") throw err;
  }
  return await writeFileAtomic(target, content, 0o644, true, guard ? () => stillExpected(layout, entryPath, guard) : undefined);
}

/**
 * Deletes `team/<entryPath>` if it is a regular file, then any folders left empty below `team/`.
 * With `guard`: only if the file still holds what the guard expects right before the unlink.
 * @returns false when the guard found the file changed (nothing was deleted), else true.
 */
export async function removeTeamFile(layout: Layout, entryPath: string, guard?: ReplaceGuard): Promise<boolean> {
  const parents = await checkParents(layout, entryPath, false);
  if (parents === "absent") return true;
  if (parents !== "ok") throw new UnsafeLocalPath(entryPath, parents.reason);
  const target = join(layout.team, entryPath);
  try {
    const st = await lstat(target);
    if (!st.isFile()) throw new UnsafeLocalPath(entryPath, "not a regular file (not deleted)");
  } catch (err) {
    if (errno(err) === "ENOENT") return true;
    throw err;
  }
  if (guard && !(await stillExpected(layout, entryPath, guard))) return false;
  try {
    await unlinkDurable(target);
  } catch (err) {
    throw await unwritableFolder(layout, entryPath, err);
  }
  for (let dir = dirname(target); dir.startsWith(layout.team + "/"); dir = dirname(dir)) {
    try {
      await rmdir(dir);
    } catch {
      break;
    }
  }
  return true;
}

/**
 * What a path the user named (`team/<entryPath>`) is on disk, looked at with lstat only: nothing is
 * opened (a FIFO would block an open) and no symlink is followed.
 * - `absent`: nothing there (or a parent is missing or not a folder);
 * - `file`, `folder`: a regular file, a real folder;
 * - `special`: a FIFO, socket or device;
 * - `symlink`: the path itself is a symlink (`under: false`), or a folder on the way is (`under: true`).
 */
export type NamedPathKind = "absent" | "file" | "folder" | "special" | { readonly symlink: true; readonly under: boolean };

/** The {@link NamedPathKind} of `team/<entryPath>` ("" is `team/` itself). */
export async function namedPathKind(layout: Layout, entryPath: string): Promise<NamedPathKind> {
  const segments = entryPath === "" ? [] : entryPath.split("/");
  let path = layout.team;
  for (let i = 0; i <= segments.length; i++) {
    let st;
    try {
      st = await lstat(path);
    } catch (err) {
      if (errno(err) === "ENOENT" || errno(err) === "ENOTDIR") return "absent";
      throw err;
    }
    const last = i === segments.length;
    if (st.isSymbolicLink()) return { symlink: true, under: !last };
    if (last) return st.isFile() ? "file" : st.isDirectory() ? "folder" : "special";
    if (!st.isDirectory()) return "absent";
    path = join(path, segments[i]!);
  }
  return "absent"; // not reached: the loop returns at the last segment
}
