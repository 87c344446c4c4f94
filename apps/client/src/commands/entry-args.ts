/**
 * Arguments of the commands that read one entry's server history (`history`, `diff`, `restore`):
 * a team file path and version numbers, checked before anything is read or sent. Each refusal is a
 * UsageError (exit 2) with a stable code: `private_path`, `outside_folder`, `invalid_path`,
 * `invalid_version`; a version the server does not have becomes `unknown_version` and a path without
 * history `unknown_path` ({@link missingOnServer}).
 */
import { MAX_INT4 } from "@teammem/protocol";
import { ServerError, UsageError } from "../errors.js";
import { caseVariantOnDisk } from "../local/path-case.js";
import { teamPathOf } from "../local/team-path.js";
import { displayPath, displayRelative, type Layout } from "../state/layout.js";

/**
 * The entry path of the team file `raw` names: relative to the memory folder (`team/x.md`) or
 * absolute inside it, as `teammem push` takes paths.
 * @throws UsageError private_path (outside team/), outside_folder, invalid_path (not a valid entry path, or `team/` itself).
 */
export function teamFileArg(layout: Layout, raw: string): string {
  // A read of the server's versions: a name stored before a newer path rule is still named (try17 C2); a restore of it is the server's to refuse.
  const where = teamPathOf(layout, raw, { existing: true });
  if (where.scope === "private")
    throw new UsageError(`${displayRelative(where.relative)} is private (outside team/): it never leaves this machine and has no server history`, "private_path");
  if (where.scope === "outside") throw new UsageError(`${displayRelative(raw)} is outside the memory folder ${layout.root}`, "outside_folder");
  if (where.scope === "invalid") throw new UsageError(`${displayRelative(raw)} is not a valid team file path: ${where.reason}`, "invalid_path");
  if (where.entryPath === "") throw new UsageError("name a team file (team/<file>), not the team folder", "invalid_path");
  return where.entryPath;
}

/**
 * Checks the spelling of a team path the user named against the disk: paths are compared as the
 * server stores them, case-sensitively, also where the file system ignores case (there `team/NOTES.md`
 * would open `team/notes.md` and be sent or restored under the wrong name).
 * @throws UsageError path_case_mismatch when the path is not there as spelt but one differing only by letter case is.
 */
export async function checkSpelling(layout: Layout, entryPath: string): Promise<void> {
  if (entryPath === "") return;
  const variant = await caseVariantOnDisk(layout.team, entryPath);
  if (variant === null) return;
  throw new UsageError(
    `${displayPath(entryPath)} is not in team/, but ${displayPath(variant)} is: paths are case-sensitive (as the server stores them); use ${displayPath(variant)}`,
    "path_case_mismatch",
  );
}

/**
 * `raw` (the value of `flag`) as a version number: a whole decimal number, 1 or more (0 with
 * `allowZero`: "before the first version", the empty text).
 * @throws UsageError invalid_version for anything else (`abc`, `1.5`, `-1`, `0x10`, ` 3`, too large).
 */
export function versionArg(raw: string, flag: string, allowZero = false): number {
  const min = allowZero ? 0 : 1;
  const value = /^[0-9]{1,10}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(value) || value < min || value > MAX_INT4)
    throw new UsageError(`${flag} must be a version number (a whole number from ${min}), got "${raw.slice(0, 40)}"`, "invalid_version");
  return value;
}

/**
 * Turns the server's 404 for an entry read into the usage error it is: no such version
 * (`unknown_version`) or no history at the path (`unknown_path`); other errors pass through.
 */
export function missingOnServer(err: unknown, path: string, version?: number): unknown {
  if (!(err instanceof ServerError && err.code === "not_found")) return err;
  if (version !== undefined) return new UsageError(`${displayPath(path)} has no version ${version} on the server (teammem history ${displayPath(path)} lists them)`, "unknown_version");
  return new UsageError(`${displayPath(path)} has no history on the server (never synced, or the path is misspelt)`, "unknown_path");
}

/**
 * The refusal of a named team file `readTeamFile` found to be a FIFO, socket, device or folder:
 * `not_regular_file` (exit 2; it was never opened blocking, try17 M3); undefined for other unsafe
 * files (symlink, hard link, not text...), which the caller refuses its own way.
 */
export function notRegularFile(path: string, file: { readonly notRegular?: true }): UsageError | undefined {
  if (!file.notRegular) return undefined;
  return new UsageError(`${displayPath(path)}: not a regular file (a FIFO, socket, device or folder); only regular files are synced`, "not_regular_file");
}
