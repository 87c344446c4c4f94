/**
 * `teammem push PATH...`: sync just these team files now, without pulling: each named file (or
 * every file under a named folder) that differs from its base is scanned and queued, then the
 * outbox is sent, through the same send path as `sync` (`syncFolder` with `only`). For agents'
 * hooks that know a file was just written. Exit 0 when done (held back and rejected files are
 * reported), 1 when the server could not be reached or refused (the change stays queued and the
 * next sync or push sends it), 2 on usage errors (a path outside the team scope included; a path
 * that does not exist, `no_such_file`, unless it is a synced file whose deletion is sent; a FIFO,
 * socket or device, `not_regular_file`; a symlink or a path under a symlinked folder, `symlink_path`). Reports
 * (and warnings) name only the paths named: another file held back by the same send is not mentioned.
 * SIGINT/SIGTERM: one line on stderr says how many changes stay queued, then the process ends by
 * the signal at once (commands/interrupted.ts).
 */
import { isTokenRefusal, tokenRefusalFix, UsageError } from "../errors.js";
import { namedPathKind } from "../local/team-files.js";
import { teamPathOf, underEntry } from "../local/team-path.js";
import { displayPath, displayRelative, type Layout } from "../state/layout.js";
import { listOutbox } from "../state/outbox.js";
import { loadReports } from "../state/reports.js";
import { loadSyncState } from "../state/sync-state.js";
import { describeEvent } from "../sync/events.js";
import { pushOutcome, type PushOutcome } from "../sync/push-outcome.js";
import { COMMAND_LOCK_WAIT_MS } from "../state/lock.js";
import { syncFolder } from "../sync/sync-folder.js";
import { notNfcReason, skippedLine } from "../scope.js";
import { postWriteHook } from "../hooks/post-write.js";
import { sayWhatStaysQueuedOnSignal } from "./interrupted.js";
import { checkSpelling } from "./entry-args.js";
import { openFolder, hookAgent, layoutFor, requireToken, type CommandContext, type CommonCommand, type OptionsOf } from "./common.js";

export const name = "push";
export const summary = "send these team files now (scanned first), without pulling";

function define(command: CommonCommand) {
  return command
    .argument("[paths...]", "team files or folders, relative to the memory folder (team/x.md) or absolute")
    .option("--json", "print the result as JSON")
    .option("--hook <agent>", "run as the agent's after-write hook (the file comes from the hook's JSON on stdin): claude-code");
}

export function register(command: CommonCommand, ctx: CommandContext, exit: (code: number) => void): void {
  define(command).action(async (paths, options) => exit(await run(paths, options, ctx)));
}

/**
 * The entry paths (or folders, "" for all of `team/`) `paths` name.
 * @throws UsageError for a path that is private (`private_path`), outside the memory folder
 *   (`outside_folder`), or invalid (`invalid_path`): the codes of history, diff and restore.
 */
export function entryPrefixes(layout: Layout, paths: readonly string[]): string[] {
  return paths.map((raw) => {
    const where = teamPathOf(layout, raw);
    // The walk skips a name not in NFC (scope.ts); named here, it would be looked for by its NFC form and silently not found.
    if (where.scope === "team" && raw.normalize("NFC") !== raw) throw new UsageError(`${displayRelative(raw)} is not a valid team path: ${notNfcReason(where.entryPath.normalize("NFD"))}`, "invalid_path");
    if (where.scope === "team") return where.entryPath;
    if (where.scope === "private")
      throw new UsageError(`${displayRelative(where.relative)} is private (outside team/): it never leaves this machine; push names team files`, "private_path");
    if (where.scope === "invalid") throw new UsageError(`${displayRelative(raw)} is not a valid team path: ${where.reason}`, "invalid_path");
    throw new UsageError(`${displayRelative(raw)} is outside the memory folder ${layout.root}`, "outside_folder");
  });
}

/**
 * Refuses named paths a push cannot send, before anything is queued or sent (try17 M7, M3): looked
 * at with lstat only (never opened, never through a symlink).
 * @throws UsageError `no_such_file` for a path with nothing on disk that is neither a synced file
 *   (whose deletion to send) nor queued; `not_regular_file` for a FIFO, socket or device;
 *   `symlink_path` for a path that is a symlink or lies under a symlinked folder (try17 C1: the
 *   same refusal for both; a symlink inside a named folder is reported by the walk as not synced).
 */
async function checkOnDisk(layout: Layout, prefixes: readonly string[]): Promise<void> {
  const missing: string[] = [];
  const notRegular: string[] = [];
  for (const prefix of prefixes) {
    const kind = await namedPathKind(layout, prefix);
    if (kind === "special") notRegular.push(displayPath(prefix));
    else if (typeof kind === "object")
      throw new UsageError(`${symlinkLine(prefix, kind.under)}; nothing sent`, "symlink_path");
    else if (kind === "absent" && !(await knownUnder(layout, prefix))) missing.push(displayPath(prefix));
  }
  if (missing.length > 0)
    throw new UsageError(`${missing.join(", ")}: no such file (nor a synced file whose deletion to send); nothing sent`, "no_such_file");
  if (notRegular.length > 0)
    throw new UsageError(`${notRegular.join(", ")}: not a regular file (a FIFO, socket or device): only regular files are synced; nothing sent`, "not_regular_file");
}

/** Why a named path that is a symlink (`under`: lies under a symlinked folder) is not synced: `team/x.md: not synced: symlink (not followed); ...`. */
export function symlinkLine(entryPath: string, under: boolean): string {
  return skippedLine({ path: displayPath(entryPath), reason: under ? "a parent folder is a symlink (not followed)" : "symlink (not followed)", symlink: true });
}

/** Whether the sync state has a live base under `prefix`, or the outbox an operation there (a deleted file's delete is then sent). */
async function knownUnder(layout: Layout, prefix: string): Promise<boolean> {
  const { bases } = await loadSyncState(layout);
  if (Object.entries(bases).some(([path, base]) => base.sha256 !== null && underEntry(prefix, path))) return true;
  return (await listOutbox(layout)).some(({ entry: { operation: op } }) => underEntry(prefix, op.path) || ("renameFrom" in op && underEntry(prefix, op.renameFrom)));
}

async function run(paths: string[], options: OptionsOf<typeof define>, ctx: CommandContext): Promise<number> {
  const { hook, ...rest } = options;
  if (hookAgent(hook, paths.length > 0 || Object.values(rest).some((v) => v !== undefined))) return postWriteHook(ctx);
  if (paths.length === 0) throw new UsageError("name the team files to push, e.g. teammem push team/build.md");
  const layout = await layoutFor(options, ctx);
  const config = await openFolder(layout, ctx);
  const prefixes = entryPrefixes(layout, paths);
  for (const prefix of prefixes) await checkSpelling(layout, prefix);
  await checkOnDisk(layout, prefixes);
  const token = requireToken(options, ctx, config);
  /** Every diagnostic line of the run (also on stderr), so --json carries them too. */
  const warnings: string[] = [];
  const stopSaying = sayWhatStaysQueuedOnSignal(layout, ctx.io, "sync or push");
  const summary = await syncFolder(layout, {
    config,
    token,
    warn: (line, path) => {
      // Another file's line (a queued operation re-scanned when the outbox is sent): a push talks only of the paths named (try17 M7).
      if (path !== undefined && !prefixes.some((p) => underEntry(p, path))) return;
      warnings.push(line);
      ctx.io.stderr(`teammem: ${line}\n`);
    },
    lockWaitMs: COMMAND_LOCK_WAIT_MS,
    onlyUnder: prefixes,
    pull: false,
  }).finally(stopSaying);
  const outcome = pushOutcome(summary, prefixes);
  // A named file whose edit the server refuses to this read-only token (now, or by an earlier
  // sync: the unchanged edit is not sent again) is not "nothing to push": it is said, and exits 1 (try18 F4).
  const readOnly = summary.error ? [] : await readOnlyRefused(layout, prefixes);
  for (const p of readOnly) if (!outcome.rejected.includes(p)) outcome.rejected.push(p);
  if (readOnly.length > 0 && !options.json) {
    ctx.io.stdout(describe(outcome, paths, new Set(readOnly)));
    ctx.io.stderr(`teammem: your token is read-only (reader): ${readOnly.join(", ")} not sent; ask an admin for the member role, or revert the file [forbidden]\n`);
    return 1;
  }
  if (readOnly.length > 0) {
    const message = `your token is read-only (reader): ${readOnly.join(", ")} not sent`;
    ctx.io.stdout(JSON.stringify({ ...outcome, ok: false, error: { code: "forbidden", message }, warnings }, null, 2) + "\n");
    return 1;
  }
  if (isTokenRefusal(summary.error)) {
    // Refused as a whole (bad, expired, revoked or foreign token): no summary of work that never happened.
    if (options.json) ctx.io.stdout(JSON.stringify({ ok: false, error: { code: summary.error.code, message: summary.error.message }, pending: summary.pending }, null, 2) + "\n");
  } else if (options.json) ctx.io.stdout(JSON.stringify({ ...outcome, warnings }, null, 2) + "\n");
  else ctx.io.stdout(describe(outcome, paths));
  if (summary.error) {
    const queued = isTokenRefusal(summary.error)
      ? `; ${summary.pending ? `${summary.pending} change(s) stay queued, sent once the server accepts the token: ` : ""}${tokenRefusalFix(summary.error.code)}`
      : summary.pending
        ? `; ${summary.pending} change(s) stay queued and the next sync or push sends them`
        : "";
    ctx.io.stderr(`teammem: ${summary.error.message}${queued} [${summary.error.code}]\n`);
    return 1;
  }
  return 0;
}

/** Display paths under `prefixes` whose local edit stands rejected as `forbidden` (a read-only token). */
async function readOnlyRefused(layout: Layout, prefixes: readonly string[]): Promise<string[]> {
  const { rejected } = await loadReports(layout);
  return rejected.filter((r) => r.code === "forbidden" && prefixes.some((p) => underEntry(p, r.path))).map((r) => displayPath(r.path));
}

function describe(o: PushOutcome, paths: readonly string[], readOnly: ReadonlySet<string> = new Set()): string {
  const lines: string[] = [];
  for (const p of o.applied) lines.push(`pushed ${p}: applied`);
  for (const p of o.merged) lines.push(`pushed ${p}: merged with a teammate's edit (the merged file is written here)`);
  for (const p of o.conflicts) lines.push(`pushed ${p}: conflict (the server kept its version; see teammem status)`);
  for (const e of o.events) lines.push(describeEvent(e));
  for (const u of o.unresolved) lines.push(`${u.path}: not sent, conflict markers still in it (line ${u.line}); remove them (or teammem resolve)`);
  for (const p of o.rejected)
    lines.push(readOnly.has(p) ? `${p}: rejected: forbidden (your token is read-only: reader), not sent` : `${p}: rejected by the server (see teammem status)`);
  for (const h of o.heldBack) lines.push(`${h.path}: held back (secret found, not sent)`);
  for (const s of o.skipped) lines.push(skippedLine(s));
  if (lines.length === 0 && o.ok) lines.push(`nothing to push for ${paths.map(displayRelative).join(", ")} (unchanged since the last sync, or already sent)`);
  if (o.pending) lines.push(`pending in outbox: ${o.pending}`);
  return lines.join("\n") + "\n";
}
