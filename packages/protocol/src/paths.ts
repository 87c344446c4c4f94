/**
 * Rules for entry paths (the key of an entry inside a namespace). Shared by client and server
 * so both refuse the same paths with the same reason.
 *
 * An entry path is a relative POSIX path, Unicode NFC-normalised, with no empty, `.` or `..`
 * segment, no leading `/`, no backslash, no NUL or other control character, no invisible character
 * (a bidi control or another default-ignorable code point, invisible-characters.ts: such a name can
 * display as another file's name), at most
 * {@link MAX_SEGMENT_BYTES} UTF-8 bytes per segment and {@link MAX_PATH_BYTES} UTF-8 bytes in all,
 * no reserved segment ({@link isReservedSegment}), and no segment Windows cannot create
 * ({@link windowsDeviceName}, one ending in a space or a dot, or one holding a character Windows
 * reserves, {@link WINDOWS_RESERVED_CHARACTERS}): a teammate on Windows must be able to write every entry.
 */
import { findInvisible } from "./invisible-characters.js";

export const MAX_SEGMENT_BYTES = 255;
export const MAX_PATH_BYTES = 1024;

export type PathRule =
  | "empty"
  | "absolute"
  | "backslash"
  | "control_character"
  | "bidi_control"
  | "invisible_character"
  | "dot_segment"
  | "empty_segment"
  | "segment_too_long"
  | "path_too_long"
  | "trailing_slash"
  | "reserved_segment"
  | "windows_device_name"
  | "trailing_dot_or_space"
  | "windows_reserved_character";

export type PathCheck =
  | { ok: true; path: string }
  | { ok: false; rule: PathRule; message: string };

const utf8Bytes = (s: string): number => Buffer.byteLength(s, "utf8");

/**
 * Segment names no entry may use, compared case-insensitively:
 * - `.git`: a synced `.git/config` could make git (and every prompt or IDE that runs it in the
 *   team folder) execute a command chosen by any teammate (`core.fsmonitor`, hooks);
 * - `.teammem` and `.teammem-tmp-*`: the client's own state folder and temporary files, which the
 *   client never syncs (an entry with such a name would be written, then pushed back as deleted).
 */
export function isReservedSegment(segment: string): boolean {
  const s = segment.toLowerCase();
  return s === ".git" || s === ".teammem" || s.startsWith(".teammem-tmp-");
}

/**
 * The Windows device name a segment names, upper-cased (`CON`, `COM1`...), or null. Windows opens
 * the device instead of a file for `CON`, `PRN`, `AUX`, `NUL`, `COM0`-`COM9` and `LPT0`-`LPT9` (with
 * the superscript digits ¹ ² ³ too), in any case, with any extension (`nul.tar.gz`) and with spaces
 * before the extension (`CON .md`), so a teammate there cannot write such a file or folder
 * (learn.microsoft.com: "Naming Files, Paths, and Namespaces"). `CONSOLE.md` or `con-notes.md` are fine.
 */
export function windowsDeviceName(segment: string): string | null {
  const m = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³]) *(?:\.|$)/iu.exec(segment);
  return m ? m[1]!.toUpperCase() : null;
}

/**
 * The printable ASCII characters Windows does not allow in a file or folder name: `: * ? < > | "`
 * (learn.microsoft.com: "Naming Files, Paths, and Namespaces", which also lists `/` and `\`, refused
 * here as separator and backslash, and the control characters U+0000-U+001F, refused for every path).
 */
export const WINDOWS_RESERVED_CHARACTERS = ':*?<>|"';

/** The first character of `segment` Windows does not allow in a name ({@link WINDOWS_RESERVED_CHARACTERS}), or null. */
export function windowsReservedCharacter(segment: string): string | null {
  for (const c of segment) if (WINDOWS_RESERVED_CHARACTERS.includes(c)) return c;
  return null;
}

/**
 * Checks `raw` against the entry-path rules: the rules for a name being created (a write, the new
 * name of a rename).
 * @returns `{ ok: true, path }` with `path` NFC-normalised, or `{ ok: false, rule, message }`
 *   naming the first rule that failed (the message never echoes more than the path itself; an
 *   invisible character is named by code point, e.g. `path holds U+202E RIGHT-TO-LEFT OVERRIDE,
 *   a bidi control ...`, rule `bidi_control` or `invisible_character`).
 */
export function checkEntryPath(raw: string): PathCheck {
  return check(raw, true);
}

/**
 * {@link checkEntryPath} for a path naming an entry that may already exist (a read, a delete, the
 * old name of a rename): every rule but the invisible-character ones (`bidi_control`,
 * `invisible_character`) and the Windows ones (`windows_device_name`, `trailing_dot_or_space`,
 * `windows_reserved_character`), which came later, so an entry stored before them stays readable, deletable and renamable to a
 * valid name.
 */
export function checkExistingEntryPath(raw: string): PathCheck {
  return check(raw, false);
}

function check(raw: string, newName: boolean): PathCheck {
  const fail = (rule: PathRule, message: string): PathCheck => ({ ok: false, rule, message });
  if (raw.length === 0) return fail("empty", "path must not be empty");
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f]/.test(raw))
    return fail("control_character", "path must not contain NUL or other control characters");
  const invisible = newName ? findInvisible(raw) : null;
  if (invisible?.bidi)
    return fail("bidi_control", `path holds ${invisible.name}, a bidi control: it can make the name display as another one (e.g. 'evil.md' reversed); rename the file without it`);
  if (invisible)
    return fail("invisible_character", `path holds ${invisible.name}, an invisible character: the name can look the same as another one; rename the file without it`);
  if (raw.includes("\\")) return fail("backslash", "path must use '/' as separator, not '\\'");
  if (raw.startsWith("/")) return fail("absolute", "path must be relative (no leading '/')");
  // A colon is a legal name character on Linux and macOS, but `a:b.md` on a Windows teammate's
  // machine names b.md on drive A: (try14 F14): refused for portability, and said so. This rule
  // predates the Windows-name rules and holds for stored names too; a colon elsewhere is refused for
  // new names only (windows_reserved_character).
  if (/^[A-Za-z]:/.test(raw))
    return fail("absolute", "path must not start with a letter and ':' (on Windows that names a drive, e.g. 'a:b.md' is b.md on drive A:)");
  if (raw.endsWith("/")) return fail("trailing_slash", "path must name a file, not end with '/'");
  const path = raw.normalize("NFC");
  if (utf8Bytes(path) > MAX_PATH_BYTES)
    return fail("path_too_long", `path must be at most ${MAX_PATH_BYTES} UTF-8 bytes`);
  for (const segment of path.split("/")) {
    if (segment === "") return fail("empty_segment", "path must not contain '//'");
    if (segment === "." || segment === "..")
      return fail("dot_segment", "path must not contain '.' or '..' segments");
    if (isReservedSegment(segment))
      return fail("reserved_segment", "path must not contain a '.git', '.teammem' or '.teammem-tmp-*' segment");
    if (utf8Bytes(segment) > MAX_SEGMENT_BYTES)
      return fail("segment_too_long", `each path segment must be at most ${MAX_SEGMENT_BYTES} UTF-8 bytes`);
    if (!newName) continue;
    const device = windowsDeviceName(segment);
    if (device !== null)
      return fail("windows_device_name", `path holds a name Windows reads as the device ${device} (CON, PRN, AUX, NUL, COM0-9 and LPT0-9 are devices there, with any extension): a teammate on Windows could not write it; rename it`);
    if (segment.endsWith(" ") || segment.endsWith("."))
      return fail("trailing_dot_or_space", `path holds a name ending in ${segment.endsWith(" ") ? "a space" : "a dot"}, which Windows drops from file names: a teammate on Windows could not write it; rename it`);
    const reserved = windowsReservedCharacter(segment);
    if (reserved !== null)
      return fail("windows_reserved_character", `path holds '${reserved}', a character Windows does not allow in file names (${WINDOWS_RESERVED_CHARACTERS.split("").join(" ")}): a teammate on Windows could not write it; rename it`);
  }
  return { ok: true, path };
}

/**
 * The key under which two paths clash on a case-insensitive file system (macOS, Windows):
 * NFC, then Unicode lower case. Two different paths with the same fold key cannot share a namespace.
 */
export function pathFoldKey(path: string): string {
  return path.normalize("NFC").toLowerCase();
}
