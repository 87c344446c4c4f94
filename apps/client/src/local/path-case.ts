/**
 * Letter case of entry paths on disk (try14 F19). Entry paths are compared as the server stores
 * them: case-sensitively. On a case-insensitive file system (macOS, Windows) `Notes.md` and
 * `notes.md` are one file, so a pull must not write (or delete) one through the other's name, and
 * a path the user names must match the file's spelling, not only reach it.
 */
import { randomBytes } from "node:crypto";
import { lstat, readdir, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { TEMP_PREFIX } from "../state/atomic.js";

/**
 * Whether the file system of folder `dir` ignores letter case: creates a temporary file with a
 * mixed-case name in it, looks for the name with the case swapped, removes the file.
 * @returns false when `dir` does not exist or cannot be written (nothing to protect there yet).
 */
export async function probeCaseInsensitive(dir: string): Promise<boolean> {
  const name = `${TEMP_PREFIX}case-${randomBytes(4).toString("hex")}-aB`;
  try {
    await writeFile(join(dir, name), "", { flag: "wx" });
  } catch {
    return false;
  }
  try {
    await lstat(join(dir, swapCase(name)));
    return true;
  } catch {
    return false;
  } finally {
    await unlink(join(dir, name)).catch(() => undefined);
  }
}

function swapCase(text: string): string {
  return [...text].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join("");
}

/**
 * The on-disk spelling of `entryPath` under `teamDir` when the path as given is not there but a
 * name differing only by letter case is (at any segment: `Docs/a.md` for `docs/a.md`); null when
 * the exact path exists or nothing like it does. Reads the folders' listings (exact names), so it
 * answers alike on case-sensitive and case-insensitive file systems.
 */
export async function caseVariantOnDisk(teamDir: string, entryPath: string): Promise<string | null> {
  const segments = entryPath.split("/");
  const real: string[] = [];
  let variant = false;
  for (const segment of segments) {
    let names: string[];
    try {
      names = await readdir(join(teamDir, ...real));
    } catch {
      return null; // not a folder: nothing there by any spelling
    }
    if (names.includes(segment)) {
      real.push(segment);
      continue;
    }
    const folded = segment.toLowerCase();
    const other = names.find((n) => n.toLowerCase() === folded);
    if (other === undefined) return null;
    real.push(other);
    variant = true;
  }
  return variant ? real.join("/") : null;
}
