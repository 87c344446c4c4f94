/**
 * Refuses a memory folder that lies in another memory folder's scope (try16 F15): given as the
 * memory folder, the `team/` subfolder of a set-up memory folder (or a folder under it) would get a
 * memory folder of its own: its `.teammem` state (with the token) and a `team/team/` inside the
 * synced scope of the outer one. A folder is a set-up memory folder when it holds `.teammem`.
 */
import { stat, realpath } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { UsageError } from "../errors.js";
import { displayRelative, STATE_DIR, TEAM_DIR } from "./layout.js";

/** Whether `dir` holds a `.teammem` folder (is a set-up memory folder). */
async function isMemoryFolder(dir: string): Promise<boolean> {
  try {
    return (await stat(join(dir, STATE_DIR))).isDirectory();
  } catch {
    return false; // absent, or a parent of it is not a folder: not a memory folder
  }
}

/** `abs` with symlinks resolved as far as it exists (a folder init would create is not there yet). */
async function realPathOf(abs: string): Promise<string> {
  const missing: string[] = [];
  for (let dir = abs; ; dir = dirname(dir)) {
    try {
      return join(await realpath(dir), ...missing.reverse());
    } catch {
      if (dirname(dir) === dir) return abs;
      missing.push(basename(dir));
    }
  }
}

/** The set-up memory folder whose `team/` is `path` or holds it, if any (the nearest one). */
async function teamScopeOwner(path: string): Promise<string | undefined> {
  for (let dir = path; dirname(dir) !== dir; dir = dirname(dir))
    if (basename(dir) === TEAM_DIR && (await isMemoryFolder(dirname(dir)))) return dirname(dir);
  return undefined;
}

/** The nearest set-up memory folder strictly above `path`, if any. */
async function memoryFolderAbove(path: string): Promise<string | undefined> {
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    if (await isMemoryFolder(dir)) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

export interface NestingOptions {
  /**
   * How the folder was named, starting the message: `--dir` (then the fix is `--dir <outer>`),
   * `the current folder`, or an agent's folder (`the memory folder`).
   */
  readonly label: "--dir" | "the current folder" | "the memory folder";
  /**
   * For `init`: also refuse a folder inside another memory folder's private files (any folder
   * strictly above it holds `.teammem`), unless the folder is set up already (a re-init of it).
   */
  readonly init?: boolean;
}

/**
 * Refuses `root` (a memory folder about to be used or set up) when it is the `team/` scope of a
 * set-up memory folder or lies under it, and for `init` when it lies inside a set-up memory folder.
 * Both the path as given (resolved) and its real path (symlinks resolved) are checked. Reads only.
 * @throws UsageError (exit 2) `dir_is_team_scope` naming the outer memory folder to use instead;
 *   `dir_in_memory_folder` (init only) naming the memory folder it lies in.
 */
export async function refuseNestedFolder(root: string, options: NestingOptions): Promise<void> {
  const abs = resolve(root);
  const real = await realPathOf(abs);
  const paths = real === abs ? [abs] : [abs, real];
  const subject = `${options.label} ${displayRelative(abs)}`;
  const useInstead = (outer: string) =>
    options.label === "the current folder"
      ? `run teammem in ${displayRelative(outer)}, or pass --dir ${displayRelative(outer)}`
      : `--dir ${displayRelative(outer)}`;
  const tail = options.init ? "; nothing was set up" : "";
  for (const path of paths) {
    const owner = await teamScopeOwner(path);
    if (owner === undefined) continue;
    const where = path === join(owner, TEAM_DIR) ? "is the team/ scope" : "is inside the team/ scope";
    throw new UsageError(
      `${subject} ${where} of the memory folder ${displayRelative(owner)} (it holds ${STATE_DIR}), not a memory folder; ` +
        `give the memory folder itself: ${useInstead(owner)}${tail}`,
      "dir_is_team_scope",
    );
  }
  if (!options.init || (await isMemoryFolder(abs))) return;
  for (const path of paths) {
    const outer = await memoryFolderAbove(path);
    if (outer === undefined) continue;
    throw new UsageError(
      `${subject} is inside the memory folder ${displayRelative(outer)} (it holds ${STATE_DIR}); a memory folder inside another one is refused: ` +
        `give that memory folder (its team/ folder is the synced scope): ${useInstead(outer)}, or a folder outside it${tail}`,
      "dir_in_memory_folder",
    );
  }
}
