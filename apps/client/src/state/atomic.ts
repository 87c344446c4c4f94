/**
 * Crash-safe file writes: write a temporary file in the same folder, fsync it, rename it over the
 * target, fsync the folder. A reader sees the old file or the new one, never a mix, and after the
 * call returns the new one survives a power cut.
 */
import { randomBytes } from "node:crypto";
import { open, readFile, rename, unlink } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { z } from "zod";
import { StateError } from "../errors.js";

/** Name prefix of the temporary files; the team-scope walker skips names starting with it. */
export const TEMP_PREFIX = ".teammem-tmp-";

/**
 * The exact name {@link writeFileAtomic} gives its temporary files (the prefix and 16 lowercase hex
 * digits). One left in `team/` by a killed write is removed by the next run holding the folder's
 * command lock (`walkTeamScope`): every writer of such files there holds that lock (try22 T3).
 */
export const LEFTOVER_TEMP_NAME = /^\.teammem-tmp-[0-9a-f]{16}$/;

/** Flushes a folder's entries (a rename or unlink in it) to disk. */
export async function fsyncDir(dir: string): Promise<void> {
  const handle = await open(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Atomically replaces `path` with `data`. `mode` (default 0o644, minus umask) applies to the new
 * file. The folder must exist. On failure the temporary file is removed and the old file is intact.
 * `syncDir` false leaves the folder's fsync to the caller (one for many files written in a row):
 * until then a power cut may lose the rename.
 * `beforeRename`, when given, runs once the new content is on disk, right before the rename: when
 * it answers false the temporary file is removed, `path` is left as it is, and the call returns
 * false (a compare-before-replace: the caller re-reads the target there, so a write by someone else
 * during the fsync is not overwritten). Returns true when `path` was replaced.
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array, mode = 0o644, syncDir = true, beforeRename?: () => Promise<boolean>): Promise<boolean> {
  const dir = dirname(path);
  const tmp = join(dir, TEMP_PREFIX + randomBytes(8).toString("hex"));
  const handle = await open(tmp, "wx", mode);
  try {
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (beforeRename && !(await beforeRename())) {
      await unlink(tmp);
      return false;
    }
    await rename(tmp, path);
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
  if (syncDir) await fsyncDir(dir);
  return true;
}

/** Atomically writes `value` as pretty JSON (see {@link writeFileAtomic}). */
export async function writeJsonAtomic(path: string, value: unknown, mode = 0o644): Promise<void> {
  await writeFileAtomic(path, JSON.stringify(value, null, 2) + "\n", mode);
}

/**
 * Like {@link writeJsonAtomic}, but leaves the file alone when it already holds exactly that JSON
 * (read and compared first: far cheaper than writing and fsyncing it again). For state files
 * saved at several steps of a run, most of which change nothing.
 */
export async function saveJsonIfChanged(path: string, value: unknown, mode = 0o644): Promise<void> {
  const text = JSON.stringify(value, null, 2) + "\n";
  try {
    if ((await readFile(path, "utf8")) === text) return;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  await writeFileAtomic(path, text, mode);
}

/**
 * Reads and validates a JSON file.
 * @param hint for a file teammem cannot rebuild: what the user can do, added to the StateError's message.
 * @returns the parsed value, or `undefined` when the file does not exist.
 * @throws StateError when the file is not JSON or does not match `schema`.
 */
export async function readJson<S extends z.ZodType>(path: string, schema: S, hint?: string): Promise<z.infer<S> | undefined> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new StateError(path, text.trim() === "" ? "empty (truncated?)" : "not JSON", hint);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new StateError(path, parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; "), hint);
  return parsed.data;
}

/** Removes `path` (no error if already gone) and fsyncs its folder. */
export async function unlinkDurable(path: string): Promise<void> {
  try {
    await unlink(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return;
    throw err;
  }
  await fsyncDir(dirname(path));
}
