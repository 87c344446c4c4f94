/**
 * `teammem scan --stdin --path team/x.md` / `teammem scan PATH...`: the pre-write guard. Scans
 * content about to be written to (or already in) the team scope exactly as a sync would before
 * sending it (content and path, `scanTeamFile`), so an agent can refuse to write a credential into
 * the team scope before it reaches disk. Prints one `file:line:rule (label)` line per finding on
 * stdout (never the value) and exits 1; exits 0 when clean, or when the path is private (outside
 * `team/`: it never leaves the machine, so it is not checked); 2 on usage errors (no input, a path
 * outside the memory folder or invalid, a path that does not exist: `no_such_file`, one that is not a
 * regular file (a FIFO, socket or device; a folder in `team/`): `not_regular_file`, never opened;
 * standard input over 8 MiB or not UTF-8). A file that cannot be scanned (not UTF-8, over 8 MiB, unreadable) is
 * reported on stderr and the other files are scanned; the exit is then 2 ("not everything was
 * scanned") unless a finding made it 1. A named symlink in `team/` (or a file reached through a
 * symlinked folder; dangling too) is never followed, as a sync never follows it (try15 F7: scanning
 * it reported a private file's findings as a team file's): it is refused like push refuses it, exit
 * 2 `symlink_path`, nothing scanned (try17 L7, C1). A named folder in `team/` (`team/` itself too)
 * means what it means to push (try17 L6): every file a sync would read under it is scanned; what a
 * sync skips there (a symlink, a name the protocol refuses) is named on stderr as not scanned (and
 * `skipped` in --json) without changing the exit code, since a sync never sends it.
 * Without `--dir`/`--agent`/`--repo` the memory folder is the nearest folder holding `.teammem` at or
 * above the current folder, else at or above the first absolute path given, else the current folder.
 * A relative path is relative to the current folder (as shell globbing gives them: `teammem scan
 * --dir mem mem/team/*`) when the current folder lies inside the memory folder or the path exists
 * there inside it; else to the memory folder (`--dir mem team/ci.md`).
 */
import { existsSync, lstatSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { decodeUtf16WithBom } from "@teammem/scanner";
import { UsageError } from "../errors.js";
import { MAX_LOCAL_FILE_BYTES, namedPathKind, readTeamFile } from "../local/team-files.js";
import { NotRegularFile, readRegularFile } from "../local/read-regular.js";
import { skippedLine, walkTeamScope, type SkippedPath } from "../scope.js";
import { symlinkLine } from "./push.js";
import { teamPathOf } from "../local/team-path.js";
import { loadConfig } from "../state/config.js";
import { loadScanPolicy, scanKeyOf } from "../state/scan-policy.js";
import { displayPath, displayRelative, type Layout } from "../state/layout.js";
import { scanTeamFile, type TeamFileScan } from "../sync/scan-team-file.js";
import { preWriteHook } from "../hooks/pre-write.js";
import { layoutOf } from "../state/layout.js";
import { refuseNestedFolder } from "../state/nested-folder.js";
import { hookAgent, layoutFor, type CommandContext, type CommonCommand, type OptionsOf } from "./common.js";

export const name = "scan";
export const summary = "check content for credentials before it is written to team/ (exit 1 with file:line:rule)";

/** Largest input scanned: the largest team file a sync reads. */
const MAX_SCAN_BYTES = MAX_LOCAL_FILE_BYTES;

function define(command: CommonCommand) {
  return command
    .argument("[paths...]", "team files to scan (relative to the memory folder, e.g. team/x.md, or absolute)")
    .option("--stdin", "scan standard input as the content about to be written to --path")
    .option("--path <path>", "with --stdin: where the content will be written, e.g. team/x.md")
    .option("--json", "print the result as JSON")
    .option("--hook <agent>", "run as the agent's before-write hook (the write comes from the hook's JSON on stdin; exit 2 refuses it): claude-code");
}

export function register(command: CommonCommand, ctx: CommandContext, exit: (code: number) => void): void {
  define(command).action(async (paths, options) => exit(await run(paths, options, ctx)));
}

/** What was scanned and what was found, for one path. */
export interface ScanResult {
  /** Shown path, relative to the memory folder (credentials in it redacted). */
  path: string;
  scope: "team" | "private";
  findings: { ruleId: string; label: string; line: number; column: number }[];
  pathFindings: { ruleId: string; label: string }[];
}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Decodes `bytes` as UTF-8, or UTF-16 with a byte order mark (as a sync reads team files). @throws UsageError when too large or not text (a sync would not send it either). */
export function decodeTeamContent(bytes: Uint8Array, what: string): string {
  if (bytes.length > MAX_SCAN_BYTES) throw new UsageError(`${what} is over ${MAX_SCAN_BYTES / 1024 / 1024} MiB: too large for a team file`);
  const utf16 = decodeUtf16WithBom(bytes);
  if (utf16) return utf16.text;
  try {
    return utf8.decode(bytes);
  } catch {
    throw new UsageError(`${what} is not UTF-8 text; team files must be UTF-8`);
  }
}

/**
 * Scans `content` as the team file `raw` (a path as the user gave it) of `layout`.
 * @returns the result, with `scope: "private"` (nothing scanned) for a path outside `team/`.
 * @throws UsageError for a path outside the memory folder or not a valid entry path.
 */
export function scanAt(layout: Layout, raw: string, content: string, fingerprintKey: string | undefined, allowFingerprints: readonly string[] = []): ScanResult {
  const where = teamPathOf(layout, raw);
  if (where.scope === "outside") throw new UsageError(`${displayRelative(raw)} is outside the memory folder ${layout.root}`);
  if (where.scope === "invalid") throw new UsageError(`${displayRelative(raw)} is not a valid team path: ${where.reason}`);
  if (where.scope === "private") return { path: displayRelative(where.relative), scope: "private", findings: [], pathFindings: [] };
  if (where.entryPath === "") throw new UsageError(`${displayRelative(raw)} names the team folder, not a file`);
  const found: TeamFileScan = scanTeamFile(where.entryPath, content, fingerprintKey, allowFingerprints);
  return {
    path: displayPath(where.entryPath),
    scope: "team",
    findings: found.findings.map((f) => ({ ruleId: f.ruleId, label: f.label, line: f.line, column: f.column })),
    pathFindings: found.pathFindings.map((f) => ({ ruleId: f.ruleId, label: f.label })),
  };
}

/** One line per finding: `team/x.md:3:github-pat (GitHub personal access token)`; never the value. */
export function findingLines(r: ScanResult): string[] {
  return [
    ...r.pathFindings.map((f) => `${r.path}: path holds ${f.ruleId} (${f.label})`),
    ...r.findings.map((f) => `${r.path}:${f.line}:${f.ruleId} (${f.label})`),
  ];
}

/** The nearest folder at or above `from` that holds `.teammem` (a set-up memory folder), if any. */
function setUpFolderAbove(from: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, ".teammem"))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

/** The memory folder of a scan (see the module comment). */
async function scanLayout(paths: readonly string[], options: OptionsOf<typeof define>, ctx: CommandContext): Promise<Layout> {
  if (options.dir !== undefined || options.agent !== undefined || options.repo !== undefined) return layoutFor(options, ctx);
  const cwd = resolve(ctx.cwd);
  const firstAbsolute = [...paths, ...(options.path !== undefined ? [options.path] : [])].find((p) => isAbsolute(p));
  const found = setUpFolderAbove(cwd) ?? (firstAbsolute !== undefined ? setUpFolderAbove(dirname(resolve(firstAbsolute))) : undefined);
  if (found === undefined) return layoutFor(options, ctx);
  await refuseNestedFolder(found, { label: "the memory folder" }); // a memory folder set up inside another's team/ before this was refused
  return layoutOf(found);
}

/** Whether `path` (absolute) lies inside `root` (or is `root`). */
function within(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** `raw` as teamPathOf reads it: made absolute against the current folder when that lies inside the memory folder, or when the path exists there inside it (see the module comment). */
function fromCwd(layout: Layout, raw: string, cwd: string): string {
  if (isAbsolute(raw)) return raw;
  const here = resolve(cwd);
  const fromHere = resolve(here, raw);
  if (within(layout.root, here) && here !== resolve(layout.root)) return fromHere;
  return within(layout.root, fromHere) && existsSync(fromHere) ? fromHere : raw;
}

/** `raw` (as fromCwd made it) on disk. */
const onDisk = (layout: Layout, raw: string) => resolve(layout.root, raw);

/** The bytes of the regular file `path` (see readRegularFile). @throws UsageError when it cannot be read or is not a regular file. */
async function readRegular(path: string, shown: string): Promise<Uint8Array> {
  try {
    return await readRegularFile(path);
  } catch (err) {
    if (err instanceof NotRegularFile) throw new UsageError(`${shown}: not a regular file`, "not_regular_file");
    throw new UsageError(`${shown}: cannot read (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
}

/** Whether a FIFO, socket or device (not a regular file, folder or symlink) is at `path`. */
function special(path: string): boolean {
  try {
    const st = lstatSync(path);
    return !st.isFile() && !st.isDirectory() && !st.isSymbolicLink();
  } catch {
    return false;
  }
}

/** Whether something (a dangling symlink too) is at `path`. */
function present(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

async function run(paths: string[], options: OptionsOf<typeof define>, ctx: CommandContext): Promise<number> {
  const { hook, ...rest } = options;
  if (hookAgent(hook, paths.length > 0 || Object.values(rest).some((v) => v !== undefined))) return preWriteHook(ctx);
  if (options.stdin && paths.length > 0) throw new UsageError("give either --stdin --path P or file paths, not both");
  if (options.stdin && options.path === undefined) throw new UsageError("--stdin needs --path: where the content will be written, e.g. team/x.md");
  if (options.path !== undefined && options.path.trim() === "") throw new UsageError("--path must not be empty");
  if (paths.some((p) => p.trim() === "")) throw new UsageError("an empty path was given");
  if (!options.stdin && options.path !== undefined) throw new UsageError("--path goes with --stdin (to scan a file on disk, name it: teammem scan team/x.md)");
  if (!options.stdin && paths.length === 0) throw new UsageError("nothing to scan: give file paths, or --stdin --path team/x.md");
  const layout = await scanLayout(paths, options, ctx);
  paths = paths.map((p) => fromCwd(layout, p, ctx.cwd));
  const stdinPath = options.path === undefined ? undefined : fromCwd(layout, options.path, ctx.cwd);
  // The folder's key when it is set up (the team's, once fetched), as its sync scans; else the scanner's default.
  const config = await loadConfig(layout).catch(() => undefined);
  const scanKey = config ? scanKeyOf(config, await loadScanPolicy(layout).catch(() => undefined)) : undefined;
  const fingerprintKey = scanKey?.fingerprintKey;
  const allowed = scanKey?.allowFingerprints ?? [];
  const results: ScanResult[] = [];
  /** Why a file named was not scanned, one line each. */
  const notScanned: string[] = [];
  /** Team paths not scanned because a sync never reads them (symlinks). */
  const skipped: SkippedPath[] = [];
  if (options.stdin) {
    if (!ctx.io.readStdin) throw new UsageError("--stdin: there is no standard input to read");
    const content = decodeTeamContent(await ctx.io.readStdin(MAX_SCAN_BYTES), "standard input");
    results.push(scanAt(layout, stdinPath!, content, fingerprintKey, allowed));
  } else {
    const missing = paths.filter((raw) => !present(onDisk(layout, raw)));
    if (missing.length > 0)
      throw new UsageError(`${missing.map((m) => displayRelative(m)).join(", ")}: no such file (a relative path is read from the current folder, else from the memory folder ${layout.root})`, "no_such_file");
    /** Named paths that are not regular files (FIFO, socket, device): refused, never opened (try17 M3). */
    const notRegular: string[] = [];
    /** Named paths that are symlinks or lie under a symlinked folder: refused, never followed (try17 L7, C1: as push refuses them). */
    const symlinks: string[] = [];
    /** Files to scan: [path as given or found, entry path]. A named folder in team/ (team/ itself too) gives the files a sync would read under it (try17 L6: as push takes it). */
    const files: [string, string][] = [];
    for (const raw of paths) {
      const where = teamPathOf(layout, raw);
      if (where.scope !== "team") {
        if (where.scope === "private" && special(onDisk(layout, raw))) notRegular.push(displayRelative(where.relative));
        else results.push(scanAt(layout, raw, "", fingerprintKey, allowed)); // refuses or reports private, as with --stdin
        continue;
      }
      const kind = await namedPathKind(layout, where.entryPath);
      if (typeof kind === "object") symlinks.push(symlinkLine(where.entryPath, kind.under));
      else if (kind === "special") notRegular.push(displayPath(where.entryPath));
      else if (kind === "folder") {
        // As a sync reads the folder: its symlinks and names a sync skips are named as not scanned (a sync never sends them).
        const scope = await walkTeamScope(layout, [where.entryPath]);
        for (const entry of [...scope.files.keys()].sort()) files.push([join(layout.team, entry), entry]);
        skipped.push(...scope.skipped);
      } else files.push([raw, where.entryPath]);
    }
    if (symlinks.length > 0) throw new UsageError(`${symlinks.join("; ")}; not scanned`, "symlink_path");
    if (notRegular.length > 0)
      throw new UsageError(`${notRegular.join(", ")}: not a regular file (a FIFO, socket or device): only regular files are scanned or synced`, "not_regular_file");
    for (const [raw, entryPath] of files) {
      // Read as a sync reads it: never through a symlink (the file, or a folder on the way), never a blocking open.
      const local = await readTeamFile(layout, entryPath);
      if (local.kind === "unsafe" && (local.symlink || local.notRegular)) {
        notScanned.push(`${displayPath(entryPath)}: ${local.reason} (changed while scanning)`);
        continue;
      }
      try {
        // Read again when the sync's read refused it (hard link, too large, not UTF-8): scanned, or said why not.
        const content =
          local.kind === "file"
            ? local.content
            : decodeTeamContent(await readRegular(join(layout.team, entryPath), displayPath(entryPath)), displayPath(entryPath));
        results.push(scanAt(layout, raw, content, fingerprintKey, allowed));
      } catch (err) {
        if (!(err instanceof UsageError)) throw err;
        // One file that cannot be scanned does not stop the others (try14 F10): it is reported, and the exit says so.
        notScanned.push(err.message);
      }
    }
  }
  const dirty = results.filter((r) => r.findings.length + r.pathFindings.length > 0);
  if (options.json)
    ctx.io.stdout(
      JSON.stringify({ ok: dirty.length === 0 && notScanned.length === 0, results, ...(notScanned.length ? { notScanned } : {}), ...(skipped.length ? { skipped } : {}) }, null, 2) + "\n",
    );
  else {
    for (const r of results) {
      const lines = findingLines(r);
      if (lines.length) ctx.io.stdout(lines.join("\n") + "\n");
      else ctx.io.stdout(r.scope === "private" ? `${r.path}: private (outside team/), never leaves this machine; not checked\n` : `${r.path}: no credentials found\n`);
    }
  }
  for (const s of skipped) ctx.io.stderr(`teammem: warning: ${skippedLine(s)}; not scanned\n`);
  for (const r of dirty)
    ctx.io.stderr(
      `teammem: ${r.path} holds ${r.findings.length + r.pathFindings.length} credential(s): it must not be written to the team scope; ` +
        "remove the value (keep it in a private file outside team/ or in a secret manager)\n",
    );
  for (const why of notScanned) ctx.io.stderr(`teammem: not scanned: ${why}\n`);
  if (notScanned.length > 0) ctx.io.stderr(`teammem: not everything was scanned (${notScanned.length} file(s) above)\n`);
  return dirty.length ? 1 : notScanned.length ? 2 : 0;
}
