/**
 * The inputs of `teammem-scan`: expands the command line's paths into texts to scan. Files are read,
 * folders walked recursively in name order (skipping `.git` and `node_modules`), `-` reads stdin.
 * UTF-16 with a byte order mark is decoded (text-file.ts). Problems are collected, never thrown: an
 * unreadable path is an error; a file that is not text (binary) or larger than
 * {@link MAX_SCAN_FILE_BYTES} (stdin and a file growing while read included: reading stops as soon
 * as the input passes the limit, so an endless stream costs the limit, not its length), and an entry of a walked folder that is not a regular file or folder
 * (a symbolic link, not followed; a FIFO, socket or device) is "not scanned"; the caller reports
 * both (and exits non-zero) so that "no findings" never means "not looked at".
 * Paths are kept as they are (a credential in one is the caller's to find and redact).
 */
import { readdirSync, statSync } from "node:fs";
import { join, resolve, sep } from "node:path";
import { readSmallFile, type SmallFile } from "../small-file.js";
import { fileText, MAX_SCAN_FILE_BYTES } from "../text-file.js";

const SKIPPED_DIRS = new Set([".git", "node_modules"]);

export interface Input {
  /** Display path (as given, or joined under a given folder); "-" for stdin. */
  readonly path: string;
  readonly text: string;
}

/** A path and what went wrong with it, e.g. `not scanned (symbolic link)` or `no such file or folder`. */
export interface PathProblem {
  readonly path: string;
  readonly reason: string;
}

export interface Collected {
  readonly inputs: Input[];
  /** Paths that could not be read. */
  readonly errors: PathProblem[];
  /** Files or folder entries seen but not scanned, with the reason. */
  readonly notScanned: PathProblem[];
}

/** Where the inputs come from: the working folder relative paths resolve against, and stdin. */
export interface InputSource {
  readonly cwd: string;
  /**
   * Reads stdin to its end, or until more than `maxBytes` bytes came (then stops reading).
   * @returns the bytes, or `"too-large"`. @throws the read's error.
   */
  readStdin(maxBytes: number): SmallFile;
}

const code = (e: unknown): string => (e as NodeJS.ErrnoException).code ?? "error";

/** Expands every path of `paths` (in order) into inputs. */
export function collectInputs(paths: readonly string[], source: InputSource): Collected {
  const out: Collected = { inputs: [], errors: [], notScanned: [] };
  for (const p of paths) collect(p, source, out);
  return out;
}

function collect(arg: string, source: InputSource, out: Collected): void {
  if (arg === "-") {
    let buf: SmallFile;
    try {
      buf = source.readStdin(MAX_SCAN_FILE_BYTES);
    } catch (e) {
      out.errors.push({ path: "-", reason: `cannot read stdin (${code(e)})` });
      return;
    }
    addText("-", buf, out);
    return;
  }
  let st;
  try {
    st = statSync(resolve(source.cwd, arg)); // a path named on the command line is followed if it is a link
  } catch (e) {
    out.errors.push({ path: arg, reason: code(e) === "ENOENT" ? "no such file or folder" : "cannot read" });
    return;
  }
  if (st.isDirectory()) {
    walk(arg, source, out);
    return;
  }
  // A FIFO, socket or device could block the scan forever or never end: refuse it.
  if (!st.isFile()) {
    out.errors.push({ path: arg, reason: "not a regular file or folder" });
    return;
  }
  readInto(arg, source, out);
}

/**
 * Reads file `path` (display path) at `at` (the path as bytes for a file found by a walk, whose name
 * may not be UTF-8; else resolved from `path`): at most {@link MAX_SCAN_FILE_BYTES} + 1 bytes, and
 * only if what was opened is a regular file (one replaced by a FIFO since it was listed is refused,
 * `cannot read (ENOTREG)`, never waited for).
 */
function readInto(path: string, source: InputSource, out: Collected, at: string | Buffer = resolve(source.cwd, path)): void {
  let buf: SmallFile;
  try {
    buf = readSmallFile(at, MAX_SCAN_FILE_BYTES);
  } catch (e) {
    out.errors.push({ path, reason: `cannot read (${code(e)})` });
    return;
  }
  addText(path, buf, out);
}

function addText(path: string, buf: SmallFile, out: Collected): void {
  if (buf === "too-large") {
    out.notScanned.push({ path, reason: `not scanned (larger than ${MAX_SCAN_FILE_BYTES} bytes)` });
    return;
  }
  const decoded = fileText(buf);
  if (decoded.kind === "not-text") out.notScanned.push({ path, reason: `not scanned (${decoded.reason})` });
  else out.inputs.push({ path, text: decoded.text });
}

/**
 * Recursive folder walk in name order (byte order); symbolic links are not followed, and they, FIFOs,
 * sockets and devices are named as not scanned (a FIFO could block the walk forever). Names are read as
 * bytes, so a file whose name is not UTF-8 is still read and scanned; its display path shows the
 * undecodable bytes as U+FFFD. `at` is the folder's path as bytes.
 */
function walk(dir: string, source: InputSource, out: Collected, at: Buffer = Buffer.from(resolve(source.cwd, dir))): void {
  let entries;
  try {
    entries = readdirSync(at, { withFileTypes: true, encoding: "buffer" });
  } catch (e) {
    out.errors.push({ path: dir, reason: `cannot list (${code(e)})` });
    return;
  }
  entries.sort((a, b) => Buffer.compare(a.name, b.name));
  for (const e of entries) {
    const p = join(dir, e.name.toString("utf8"));
    const childAt = Buffer.concat([at, Buffer.from(sep), e.name]);
    if (e.isDirectory()) {
      if (!SKIPPED_DIRS.has(e.name.toString("utf8"))) walk(p, source, out, childAt);
    } else if (e.isFile()) readInto(p, source, out, childAt);
    else out.notScanned.push({ path: p, reason: `not scanned (${e.isSymbolicLink() ? "symbolic link, not followed" : "not a regular file or folder"})` });
  }
}
