/**
 * `teammem push PATH...`: sync just these team files now, without pulling: each named file (or
 * every file under a named folder) that differs from its base is scanned and queued, then the
 * outbox is sent, through the same send path as `sync` (`syncFolder` with `only`). For agents'
 * hooks that know a file was just written. Exit 0 when done (held back and rejected files are
 * reported), 1 when the server could not be reached or refused (the change stays queued and the
 * next sync or push sends it), 2 on usage errors (a path outside the team scope included).
 */
import { isTokenRefusal, tokenRefusalFix, UsageError } from "../errors.js";
import { teamPathOf } from "../local/team-path.js";
import { displayRelative, type Layout } from "../state/layout.js";
import { describeEvent } from "../sync/events.js";
import { pushOutcome, type PushOutcome } from "../sync/push-outcome.js";
import { COMMAND_LOCK_WAIT_MS } from "../state/lock.js";
import { syncFolder } from "../sync/sync-folder.js";
import { notNfcReason, skippedLine } from "../scope.js";
import { postWriteHook } from "../hooks/post-write.js";
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

async function run(paths: string[], options: OptionsOf<typeof define>, ctx: CommandContext): Promise<number> {
  const { hook, ...rest } = options;
  if (hookAgent(hook, paths.length > 0 || Object.values(rest).some((v) => v !== undefined))) return postWriteHook(ctx);
  if (paths.length === 0) throw new UsageError("name the team files to push, e.g. teammem push team/build.md");
  const layout = await layoutFor(options, ctx);
  const config = await openFolder(layout, ctx);
  const prefixes = entryPrefixes(layout, paths);
  for (const prefix of prefixes) await checkSpelling(layout, prefix);
  const token = requireToken(options, ctx, config);
  /** Every diagnostic line of the run (also on stderr), so --json carries them too. */
  const warnings: string[] = [];
  const summary = await syncFolder(layout, {
    config,
    token,
    warn: (line) => {
      warnings.push(line);
      ctx.io.stderr(`teammem: ${line}\n`);
    },
    lockWaitMs: COMMAND_LOCK_WAIT_MS,
    onlyUnder: prefixes,
    pull: false,
  });
  const outcome = pushOutcome(summary, prefixes);
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

function describe(o: PushOutcome, paths: readonly string[]): string {
  const lines: string[] = [];
  for (const p of o.applied) lines.push(`pushed ${p}: applied`);
  for (const p of o.merged) lines.push(`pushed ${p}: merged with a teammate's edit (the merged file is written here)`);
  for (const p of o.conflicts) lines.push(`pushed ${p}: conflict (the server kept its version; see teammem status)`);
  for (const e of o.events) lines.push(describeEvent(e));
  for (const u of o.unresolved) lines.push(`${u.path}: not sent, conflict markers still in it (line ${u.line}); remove them (or teammem resolve)`);
  for (const p of o.rejected) lines.push(`${p}: rejected by the server (see teammem status)`);
  for (const h of o.heldBack) lines.push(`${h.path}: held back (secret found, not sent)`);
  for (const s of o.skipped) lines.push(skippedLine(s));
  if (lines.length === 0 && o.ok) lines.push(`nothing to push for ${paths.map(displayRelative).join(", ")} (unchanged since the last sync, or already sent)`);
  if (o.pending) lines.push(`pending in outbox: ${o.pending}`);
  return lines.join("\n") + "\n";
}
