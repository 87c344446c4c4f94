/**
 * `teammem sync [--json] [--dry-run] [--allow <fingerprint> --reason false_positive|test_value|will_fix "text"]`:
 * pull, then push; with --allow, first ask the team to let a held-back secret through (a bypass
 * request: where it is and why, never the value), which the team's policy approves at once or
 * leaves pending for an admin. stdout: a summary (or JSON); stderr: held-back files
 * (`team/x.md:3 rule`), conflicts, rejections. Exit 1 when the server could not be reached or
 * refused the run (local changes stay queued), else 0. `--dry-run`: what the sync would do
 * (sync/dry-run.ts), nothing sent, written or changed; exit 1 when the sync would be refused or the
 * server could not be read. SIGINT/SIGTERM: one line on stderr says how many changes stay queued,
 * then the process ends by the signal at once (commands/interrupted.ts).
 */
import { BypassReason, FindingFingerprint, FreeText } from "@teammem/protocol";
import { scan } from "@teammem/scanner";
import { ClientError, isTokenRefusal, NetworkError, ServerError, tokenRefusalFix, UsageError } from "../errors.js";
import { createApi } from "../http/api.js";
import type { StoredBypass } from "../state/bypasses.js";
import type { Config } from "../state/config.js";
import { displayPath, type Layout } from "../state/layout.js";
import type { AllowRequest } from "../sync/bypasses.js";
import { planSync, type DryRunPlan } from "../sync/dry-run.js";
import { describeEvent, isRoutineEvent, type SyncEvent } from "../sync/events.js";
import { COMMAND_LOCK_WAIT_MS } from "../state/lock.js";
import { syncFolder } from "../sync/sync-folder.js";
import type { SyncSummary } from "../sync/sync.js";
import { sessionStartHook } from "../hooks/session-start.js";
import { sayWhatStaysQueuedOnSignal } from "./interrupted.js";
import { openFolder, hookAgent, layoutFor, requireToken, redactingIo, type CommandContext, type CommonCommand, type OptionsOf } from "./common.js";

export const name = "sync";
export const summary = "pull the team's changes, then push local team/ changes (scanned first)";

function define(command: CommonCommand) {
  return command
    .option("--json", "print the summary as JSON")
    .option("--dry-run", "show what a sync would pull, send, hold back and delete; send, write and change nothing")
    .option("--allow-mass-delete", "allow deleting every entry (team/ missing) or more than 10 entries and half of them in one sync")
    .option("--allow <fingerprint>", "ask the team to let the held-back secret with this fingerprint through (teammem status shows fingerprints); needs --reason")
    .option("--reason <why...>", 'with --allow: false_positive, test_value or will_fix, then optionally a note in quotes, e.g. --reason test_value "sandbox key from the docs"')
    .option("--hook <agent>", "run as the agent's session-start hook (reads the hook's JSON on stdin; bounded time; exit 0 unless refusing): claude-code");
}

export function register(command: CommonCommand, ctx: CommandContext, exit: (code: number) => void): void {
  define(command).action(async (options) => exit(await run(options, ctx)));
}

async function run(options: OptionsOf<typeof define>, rawCtx: CommandContext): Promise<number> {
  // Server messages and refusal reasons are printed redacted.
  const ctx: CommandContext = { ...rawCtx, io: redactingIo(rawCtx.io) };
  const { hook, ...rest } = options;
  if (hookAgent(hook, Object.values(rest).some((v) => v !== undefined))) return sessionStartHook(ctx);
  const layout = await layoutFor(options, ctx);
  const config = await openFolder(layout, ctx, options.dryRun !== true);
  const token = requireToken(options, ctx, config);
  const allow = allowRequestOf(options.allow, options.reason);
  if (options.dryRun && allow) throw new UsageError("--allow sends a request: it does not go with --dry-run");
  if (options.dryRun) return dryRun(layout, config, token, options, ctx);
  /** Every diagnostic line of the run (also on stderr), so --json carries them too. */
  const warnings: string[] = [];
  const stopSaying = sayWhatStaysQueuedOnSignal(layout, ctx.io, "sync");
  const summary = await syncFolder(layout, {
    ...(allow ? { allow } : {}),
    config,
    token,
    warn: (line) => {
      warnings.push(line);
      ctx.io.stderr(`teammem: ${line}\n`);
    },
    lockWaitMs: COMMAND_LOCK_WAIT_MS,
    allowMassDelete: options.allowMassDelete === true,
  }).finally(stopSaying);
  if (isTokenRefusal(summary.error)) {
    // Refused as a whole (bad, expired, revoked or foreign token): no summary of work that never happened.
    if (options.json) ctx.io.stdout(JSON.stringify({ ok: false, error: errorJson(summary.error), pending: summary.pending }, null, 2) + "\n");
  } else if (options.json) ctx.io.stdout(JSON.stringify(toJson(summary, warnings), null, 2) + "\n");
  else ctx.io.stdout(describe(summary));
  if (summary.error) {
    ctx.io.stderr(`teammem: ${summary.error.message}${queuedNote(summary.pending, summary.error)} [${errorJson(summary.error).code}]\n`);
    return 1;
  }
  return 0;
}

async function dryRun(layout: Layout, config: Config, token: string, options: OptionsOf<typeof define>, ctx: CommandContext): Promise<number> {
  const api = createApi({ server: config.server, namespace: config.namespace, token });
  const plan = await planSync(layout, config, api, options.allowMassDelete === true);
  if (options.json) {
    const { error, ...rest } = plan;
    ctx.io.stdout(JSON.stringify({ ok: !error && !plan.refused, dryRun: true, ...rest, ...(error ? { error: errorJson(error) } : {}) }, null, 2) + "\n");
  } else ctx.io.stdout(describePlan(plan));
  if (plan.refused) ctx.io.stderr(`teammem: a sync now would be refused: ${plan.refused.message} [${plan.refused.code}]\n`);
  if (plan.error) ctx.io.stderr(`teammem: ${plan.error.message} (the pull part is unknown) [${errorJson(plan.error).code}]\n`);
  return plan.refused || plan.error ? 1 : 0;
}

function describePlan(p: DryRunPlan): string {
  const lines = ["dry run: nothing was sent, written or changed"];
  if (p.refused) lines.push(`a sync would be refused (nothing pulled or sent): ${p.refused.message}`);
  if (p.namespaceMissing) lines.push("the namespace does not exist on the server yet: the sync would create it");
  if (p.reconcile)
    lines.push("the server is not the one this folder last synced with (restored, reset or replaced): the sync would reconcile every entry instead of pulling");
  if (p.error) lines.push("would pull: unknown (the server could not be read, see below)");
  else {
    lines.push(`would pull ${p.pull.length} change(s)` + (p.pull.length ? ":" : ""));
    const what = { write: "written here", delete: "deleted here", merge: "merged with your edit", unchanged: "already equal here" };
    for (const c of p.pull) lines.push(`  ${c.path} v${c.version} by ${c.author}: ${c.renamedFrom ? `renamed from ${c.renamedFrom}, ` : ""}${what[c.action]}`);
  }
  lines.push(`would send ${p.send.length} operation(s)` + (p.send.length ? ":" : ""));
  for (const s of p.send)
    lines.push(
      `  ${s.path}: ${s.action}${s.renamedFrom ? ` from ${s.renamedFrom}` : ""}${s.baseVersion ? ` (base v${s.baseVersion})` : ""}${s.queued ? ", queued earlier" : ""}`,
    );
  for (const h of p.heldBack)
    lines.push(`held back (secret found, would not be sent): ${[...h.pathFindings.map((f) => `${h.path}: path holds ${f.ruleId}`), ...h.findings.map((f) => `${h.path}:${f.line} ${f.ruleId}`)].join(", ")}`);
  for (const u of p.unresolved) lines.push(`not sent, conflict markers still in: ${u.path} (line ${u.line})`);
  for (const d of p.dropped)
    lines.push(
      d.reason === "deleted"
        ? `not sent: ${d.path} was queued earlier and deleted since (the server never had it)`
        : `not sent now: ${d.path} was queued earlier and cannot be read safely now (stays queued)`,
    );
  for (const r of p.notResent) lines.push(`not sent again: ${r.path} (refused before: ${r.code}; change the file to send it)`);
  for (const f of p.forbidden) lines.push(`would be refused: ${f.path}: ${f.action} (forbidden: your token is read-only, a reader's edits are not sent)`);
  lines.push(`pending in outbox: ${p.pending}; cursor ${p.cursor}`);
  return lines.join("\n") + "\n";
}

/**
 * `--allow` and `--reason`, checked as the server will check them.
 * @throws UsageError (exit 2) when one comes without the other or a value is malformed;
 *   ClientError secret_detected (exit 1, nothing sent) when the note holds a credential.
 */
function allowRequestOf(allow: string | undefined, reason: string[] | undefined): AllowRequest | undefined {
  if (allow === undefined && reason === undefined) return undefined;
  if (allow === undefined) throw new UsageError("--reason goes with --allow <fingerprint>");
  if (reason === undefined || reason.length === 0) throw new UsageError("--allow needs --reason false_positive|test_value|will_fix [\"note\"]");
  const fingerprint = FindingFingerprint.safeParse(allow.trim().toLowerCase());
  if (!fingerprint.success) throw new UsageError(`--allow ${JSON.stringify(allow)}: a fingerprint is 32 hex digits, as teammem status shows it`);
  const [why, ...words] = reason;
  const parsedReason = BypassReason.safeParse(why);
  if (!parsedReason.success) throw new UsageError(`--reason ${JSON.stringify(why)}: give false_positive, test_value or will_fix`);
  if (words.length === 0) return { fingerprint: fingerprint.data, reason: parsedReason.data };
  const text = FreeText.safeParse(words.join(" "));
  if (!text.success) throw new UsageError(`--reason note: ${text.error.issues[0]?.message ?? "not accepted"} (1-500 characters on one line)`);
  // Scanned here like every path and id: a credential in the note never leaves the machine.
  const rules = [...new Set(scan(text.data, { allowMarker: false }).map((f) => f.ruleId))];
  if (rules.length > 0)
    throw new ClientError(`not sent: the --reason note holds a credential (${rules.join(", ")}); remove it and run the command again`, 1, "secret_detected");
  return { fingerprint: fingerprint.data, reason: parsedReason.data, reasonText: text.data };
}

/** One line on the bypass request `--allow` sent. */
export function describeBypass(b: StoredBypass): string {
  const where = `${displayPath(b.path)}:${b.line} ${b.ruleId}`;
  if (b.status === "approved") return `bypass approved${b.decidedBy === "policy" ? " by the team's policy" : b.decidedBy ? ` by ${b.decidedBy}` : ""} for ${where}: the file is sent`;
  if (b.status === "pending") return `bypass requested for ${where}: waiting for an admin's approval (teammem status shows its state; the file stays held back until then)`;
  const [by, note] = b.status === "revoked" ? [b.revokedBy, b.revokeNote] : [b.decidedBy, b.note];
  return `bypass for ${where} is ${b.status}${by ? ` (by ${by})` : ""}${note ? `: ${note}` : ""}; remove the secret to send the file`;
}

function errorJson(err: NetworkError | ServerError) {
  return { code: err.code, message: err.message };
}

/** What becomes of the queued changes after `error` stopped the run: a refused token is not fixed by the next sync (try16 F9). */
function queuedNote(pending: number, error: NetworkError | ServerError): string {
  const queued = `${pending} change${pending === 1 ? " is" : "s are"} queued in the outbox`;
  if (isTokenRefusal(error)) return `; ${pending === 0 ? "" : `${queued}, sent once the server accepts the token: `}${tokenRefusalFix(error.code)}`;
  if (pending === 0) return "";
  return `; ${queued} and will be sent by the next sync`;
}

/** `sync --json`: the summary, and `warnings`, the diagnostic lines printed on stderr (files refused here, not sent, not written...). */
function toJson(s: SyncSummary, warnings: readonly string[]) {
  return {
    ok: !s.error,
    ...(s.error ? { error: errorJson(s.error) } : {}),
    reached: s.reached,
    ...(s.bypass ? { bypass: s.bypass } : {}),
    pulled: s.pulled,
    pushed: s.pushed,
    heldBack: s.heldBack.map((h) => ({
      path: displayPath(h.path),
      findings: h.findings.map((f) => ({ ruleId: f.ruleId, label: f.label, line: f.line, column: f.column, fingerprint: f.fingerprint })),
      ...(h.pathFindings ? { pathFindings: h.pathFindings.map((f) => ({ ruleId: f.ruleId, label: f.label })) } : {}),
    })),
    skipped: s.skipped,
    newerOnServer: s.newerOnServer,
    events: s.events,
    unresolved: s.unresolved,
    warnings,
    pending: s.pending,
    cursor: s.cursor,
  };
}

/**
 * Routine events (sync/events.ts isRoutineEvent: a teammate's create, update, delete or plain rename)
 * printed one per line before the rest are counted; every other event (purge, conflict, merge,
 * overridden delete, kept edit...) is always printed. All of them are in --json.
 */
const MAX_ROUTINE_EVENT_LINES = 50;

/** The summary's event lines, in arrival order: every event the user must know, routine ones up to the cap, then a count of the rest. */
export function describeEvents(events: readonly SyncEvent[], maxRoutine = MAX_ROUTINE_EVENT_LINES): string[] {
  const lines: string[] = [];
  let routine = 0;
  for (const e of events) {
    if (!isRoutineEvent(e)) lines.push(describeEvent(e));
    else if (++routine <= maxRoutine) lines.push(describeEvent(e));
  }
  if (routine > maxRoutine) lines.push(`... and ${routine - maxRoutine} more file change(s) (sync --json lists them all)`);
  return lines;
}

/** The summary's first lines: what was pulled and pushed, or, when the server was never reached, that nothing was (try18 F13). */
function describeTransfer(s: SyncSummary): string[] {
  if (s.error && !s.reached)
    return [`not synced: the server was not reached; nothing was pulled or pushed${s.pending ? `, ${s.pending} change(s) stay queued in the outbox` : ""}`];
  return [
    `pulled ${s.pulled.changes} change(s): ${s.pulled.written.length} written, ${s.pulled.deleted.length} deleted` +
      (s.pulled.merged.length ? `, ${s.pulled.merged.length} merged with your edits` : "") +
      (s.pulled.conflicts.length ? `, ${s.pulled.conflicts.length} with conflict markers` : "") +
      (s.pulled.keptLocal.length ? `, ${s.pulled.keptLocal.length} kept (changed locally too; merged on push)` : "") +
      (s.pulled.notWritten.length ? `, ${s.pulled.notWritten.length} not written (see teammem status)` : ""),
    `pushed: ${s.pushed.applied.length} applied, ${s.pushed.merged.length} merged, ` +
      `${s.pushed.conflicts.length} conflict(s), ${s.pushed.rejected.length} rejected`,
  ];
}

function describe(s: SyncSummary): string {
  const lines = [...describeTransfer(s)];
  if (s.bypass) lines.unshift(describeBypass(s.bypass));
  lines.push(...describeEvents(s.events));
  if (s.unresolved.length)
    lines.push(`not sent, conflict markers still in: ${s.unresolved.map((u) => `${u.path} (line ${u.line})`).join(", ")}; remove them (or teammem resolve)`);
  if (s.heldBack.length) lines.push(`held back (secret found, not sent): ${s.heldBack.map((h) => displayPath(h.path)).join(", ")}`);
  if (s.newerOnServer.length)
    lines.push(`newer on the server, not applied here (your local edit was not merged; see teammem status): ${s.newerOnServer.join(", ")}`);
  if (s.skipped.length) lines.push(`skipped: ${s.skipped.map((k) => `${k.path} (${k.reason})`).join(", ")}`);
  lines.push(`pending in outbox: ${s.pending}; cursor ${s.cursor}`);
  if (s.error && s.reached) lines.push("stopped early by the error below; the counts above are what the server acknowledged before it");
  return lines.join("\n") + "\n";
}
