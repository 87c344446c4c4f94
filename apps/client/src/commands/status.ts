/**
 * `teammem status [--json] [--offline]`: what is pending and what is blocked, from local state,
 * and one short question to the server (sync/server-probe.ts; skipped with --offline): is it still
 * the one this folder synced with? A restored or reset server means a reconciliation is pending;
 * an unreachable one is said so ("as of the last sync"), never an unqualified "everything synced". Local state: outbox operations, local changes not queued yet, held-back files with `path:line rule`,
 * rejected operations, bypass requests (`sync --allow`) as last seen, conflicts, server versions not applied here (not written, or kept out by a
 * local edit that was not merged), skipped paths, the last cursor.
 */
import { checkTeamMemory, formatWarning, type MemoryWarning } from "../checks/memory-checks.js";
import { walkTeamScope, type TeamRoot, type TeamScope } from "../scope.js";
import type { Config } from "../state/config.js";
import { listOutbox, type QueuedOperation } from "../state/outbox.js";
import { displayPath, displayRelative } from "../state/layout.js";
import { loadReports, type Reports } from "../state/reports.js";
import { loadBypasses } from "../state/bypasses.js";
import { loadSyncState, type SyncState } from "../state/sync-state.js";
import { loadLastSync } from "../state/last-sync.js";
import { isMassDelete, liveEntryCount } from "../sync/mass-delete.js";
import { pairedRenames } from "../sync/dry-run.js";
import { localChanges } from "../sync/queue-changes.js";
import { contentsOf, memoryFormat } from "./check.js";
import { markersLeftIn } from "../sync/settle-conflicts.js";
import { stat } from "node:fs/promises";
import { ClientError, isTokenRefusalCode } from "../errors.js";
import { createApi } from "../http/api.js";
import type { Layout } from "../state/layout.js";
import { notChecked, PROBE_REPLY_DEADLINE_MS, PROBE_TIMEOUT_MS, probeServer, WAITING_PAGE, type ServerCheck } from "../sync/server-probe.js";
import { openFolder, findToken, layoutFor, redactingIo, type CommandContext, type CommonCommand, type CommonOptions } from "./common.js";

export const name = "status";
export const summary = "show pending, held-back, rejected and conflicting files, and whether the server needs a reconciliation";

export function register(command: CommonCommand, ctx: CommandContext, exit: (code: number) => void): void {
  command
    .option("--json", "print machine-readable JSON")
    .option("--offline", "do not ask the server (local state only)")
    .action(async (options) => {
    const report = await collectStatus({ ...options, probe: options.offline !== true }, ctx);
    // Server messages (a refusal's reason) are printed redacted.
    const io = redactingIo(ctx.io);
    io.stdout(options.json ? JSON.stringify(report, null, 2) + "\n" : formatStatus(report));
    const { code, error } = report.serverCheck;
    // A token refused here (empty, whitespace) is the usage error `sync` exits 2 with (try21 F1).
    if (code === "usage_error") {
      io.stderr(`teammem: ${error}; the status above is local state only [${code}]\n`);
      return exit(2);
    }
    if (!isTokenRefusalCode(code)) return exit(0);
    // The local state above still holds; the exit code says the server refused this token.
    io.stderr(`teammem: ${error ?? "the server refused the token"}; the status above is local state only [${code}]\n`);
    exit(1);
  });
}

/** The JSON shape of `status --json`. Paths are relative to the memory folder (`team/...`). */
export interface StatusReport {
  server: string;
  namespace: string;
  clientId: string;
  cursor: number;
  /**
   * A full reconciliation with the server is due (the server was restored, reset or moved, or the
   * folder has no sync state) or was interrupted: the next sync runs it; until then nothing here is known to be synced.
   */
  reconcile: { reason: string; since: string } | null;
  /**
   * What the server said when status asked it (`probe`): `reconcilePending` true when it is not the
   * one this folder synced with (another identity or epoch, a cursor below ours, the namespace gone).
   * `checked` false with --offline, without a token, or with a token refused here (empty, holding
   * whitespace: `code` `usage_error`, and status exits 2 as sync does); `reachable` false when it did not answer.
   */
  serverCheck: ServerCheck;
  /**
   * When the last sync that pulled and pushed without an error finished, even one that changed
   * nothing (ISO 8601; `.teammem/last-sync.json`, else state.json's mtime; null: never synced):
   * what "as of the last sync" means.
   */
  lastSyncAt: string | null;
  /** What team/ is: "folder", or "missing" / "symlink" / "not a folder" (sync then refuses while entries are tracked). */
  teamFolder: TeamRoot;
  /** Entries last seen alive on the server (bases that are not tombstones). */
  trackedEntries: number;
  /** `from`: the old path of a rename. */
  pending: { opId: string; path: string; kind: "put" | "delete" | "rename"; from?: string; baseVersion: number; queuedAt: string }[];
  /** Files changed here (created, edited, deleted) and not queued yet, every one (also those in `refusedDeletes`). */
  modified: string[];
  /**
   * Files deleted here whose deletes a sync refuses as a mass delete (`team/` missing or not a
   * folder while entries are tracked, or more than 10 deletes that are also more than half of the
   * tracked entries; renames excluded, as the sync pairs them): nothing is sent until the files are
   * restored or `teammem sync --allow-mass-delete` runs. Empty when a sync would not refuse.
   */
  refusedDeletes: string[];
  /**
   * `pathFindings`: credentials in the file's path (the path shown is redacted). `fingerprint`: the
   * team-keyed fingerprint of the value, for `teammem sync --allow <fingerprint> --reason ...`.
   */
  heldBack: {
    path: string;
    findings: { ruleId: string; label: string; line: number; column: number; fingerprint: string }[];
    pathFindings?: { ruleId: string; label: string }[];
  }[];
  /** `local`: refused by this client before sending (over the server's limits, same code and message as the server's). */
  rejected: { path: string; code: string; message: string; retry: boolean; local?: boolean; findings?: { ruleId: string; line: number; column: number }[] }[];
  /**
   * Bypass requests sent from this folder (`sync --allow`), newest last, in the state the last sync
   * saw: `pending` (an admin decides; every sync asks again), `approved` (the file is sent),
   * `denied`, `revoked`. `decidedBy` is `policy` for an approval by the team's immediate policy;
   * `note` is the approving or denying admin's. `revokedBy` and `revokeNote`: who revoked an
   * approval and why (null until revoked, or no note given). `currentKey` false: the team's
   * fingerprint key was rotated, an approval no longer matches anything.
   */
  bypasses: {
    id: string;
    path: string;
    line: number;
    ruleId: string;
    fingerprint: string;
    reason: string;
    status: string;
    requestedAt: string;
    decidedBy: string | null;
    note: string | null;
    revokedBy: string | null;
    revokeNote: string | null;
    currentKey: boolean;
  }[];
  /**
   * `conflictId`: the server's record (null: found by this client's merge at pull); `author` wrote
   * the server version `headVersion`; `markersAt`: line of the first conflict marker still in the
   * file (null: none; the file is then sent, and the record closed, by the next sync);
   * `basePurged`: the version both sides started from, when it was purged from the server's history
   * (the markers then hold every difference; absent otherwise).
   */
  conflicts: {
    path: string;
    conflictId: string | null;
    headVersion: number;
    author: string;
    copy: string | null;
    at: string;
    /**
     * `markers`: conflict markers are in the file (from line `markersAt`): not sent until they are
     * gone; `settled`: merged here or markers removed: the next sync sends the file and closes the
     * server's record; `kept-copy`: the server kept its version, yours is in `copy` (or your delete
     * was recorded) until `teammem resolve` or the copy is deleted.
     */
    state: "markers" | "settled" | "kept-copy";
    markersAt: number | null;
    basePurged?: number;
  }[];
  skipped: { path: string; reason: string }[];
  /** Server versions that could not be written here (a folder or symlink in the way); retried every sync. */
  notWritten: { path: string; version: number; reason: string; at: string }[];
  /**
   * Server versions not applied here because the local file was changed since its base, and not
   * merged yet, with why (e.g. the local edit is held back, rejected, or the token is read-only).
   */
  newerOnServer: { path: string; version: number; reason: string }[];
  /** Memory-aware warnings about the team files (`teammem check`); they never block a sync. */
  warnings: MemoryWarning[];
}

/**
 * What `teammem status` reports for the folder of `options`: local state, and with `probe` one
 * request to the server (its answer starting within {@link PROBE_TIMEOUT_MS}, whole within
 * {@link PROBE_REPLY_DEADLINE_MS}; without `probe`, no network).
 * @throws UsageError when the folder was never set up with `teammem init`; StateError when a state file is damaged.
 */
export async function collectStatus(options: CommonOptions & { probe?: boolean }, ctx: CommandContext): Promise<StatusReport> {
  const layout = await layoutFor(options, ctx);
  const config = await openFolder(layout, ctx);
  const [state, reports, outbox, scope, bypasses] = await Promise.all([
    loadSyncState(layout),
    loadReports(layout),
    listOutbox(layout),
    walkTeamScope(layout),
    loadBypasses(layout),
  ]);
  const serverCheck = options.probe ? await askServer(options, ctx, config, state) : notChecked();
  // state.json's mtime stands in only for a folder that synced before last-sync.json existed: one
  // that `init --offline` made (or whose syncs all failed) holds no cursor and no base, never synced.
  const everSynced = state.cursor > 0 || Object.keys(state.bases).length > 0;
  const lastSyncAt = (await loadLastSync(layout)) ?? (everSynced ? await lastSaved(layout) : null);
  const markersAt = new Map<string, number | null>();
  for (const c of reports.conflicts) markersAt.set(c.path, markersAt.get(c.path) ?? (await markersLeftIn(layout, c)));
  const known = new Set([
    ...outbox.flatMap(({ entry: { operation: op } }) => ("renameFrom" in op ? [op.path, op.renameFrom] : [op.path])),
    ...reports.heldBack.map((h) => h.path),
    ...reports.rejected.map((r) => r.path),
    ...[...markersAt].flatMap(([path, line]) => (line === null ? [] : [path])),
  ]);
  const changes = localChanges(state.bases, scope).filter((c) => !known.has(c.path));
  return {
    server: config.server,
    namespace: config.namespace,
    clientId: config.clientId,
    cursor: state.cursor,
    reconcile: state.reconcile ?? null,
    serverCheck,
    lastSyncAt,
    teamFolder: scope.root,
    trackedEntries: liveEntryCount(state),
    pending: outbox.map(({ entry: { operation: op, queuedAt } }) => ({
      opId: op.opId,
      path: displayPath(op.path),
      kind: "delete" in op ? "delete" : "renameFrom" in op ? "rename" : "put",
      ...("renameFrom" in op ? { from: displayPath(op.renameFrom) } : {}),
      baseVersion: op.baseVersion,
      queuedAt,
    })),
    modified: changes.map((c) => displayPath(c.path)),
    refusedDeletes: (await refusedDeletes(layout, state, scope, changes)).map(displayPath),
    heldBack: reports.heldBack.map((h) => ({
      path: displayPath(h.path),
      findings: h.findings.map((f) => ({ ruleId: f.ruleId, label: f.label, line: f.line, column: f.column, fingerprint: f.fingerprint })),
      ...(h.pathFindings ? { pathFindings: h.pathFindings.map((f) => ({ ruleId: f.ruleId, label: f.label })) } : {}),
    })),
    rejected: reports.rejected.map((r) => ({
      path: displayPath(r.path),
      code: r.code,
      message: r.message,
      retry: r.retry,
      ...(r.local ? { local: true } : {}),
      ...(r.findings ? { findings: r.findings.map((f) => ({ ruleId: f.ruleId, line: f.line, column: f.column })) } : {}),
    })),
    bypasses: bypasses.map((b) => ({
      id: b.id,
      path: displayPath(b.path),
      line: b.line,
      ruleId: b.ruleId,
      fingerprint: b.fingerprint,
      reason: b.reason,
      status: b.status,
      requestedAt: b.requestedAt,
      decidedBy: b.decidedBy,
      note: b.note,
      revokedBy: b.revokedBy,
      revokeNote: b.revokeNote,
      currentKey: b.currentKey,
    })),
    conflicts: reports.conflicts.map((c) => ({
      path: displayPath(c.path),
      conflictId: c.conflictId,
      headVersion: c.headVersion,
      author: c.author ?? "",
      copy: c.copy === null ? null : displayRelative(c.copy),
      at: c.at,
      state: c.markers === undefined ? "kept-copy" : markersAt.get(c.path) != null ? "markers" : "settled",
      markersAt: markersAt.get(c.path) ?? null,
      ...(c.basePurged !== undefined ? { basePurged: c.basePurged } : {}),
    })),
    skipped: scope.skipped,
    notWritten: reports.notWritten.map((n) => ({ ...n, path: displayPath(n.path) })),
    newerOnServer: reports.newerOnServer
      .filter((n) => (state.bases[n.path]?.version ?? 0) < n.version)
      .map((n) => ({ path: displayPath(n.path), version: n.version, reason: whyNotApplied(n.path, reports, outbox, state, scope) })),
    warnings: checkTeamMemory(contentsOf(scope), memoryFormat(config, options.agent)),
  };
}

/**
 * The deletes among `changes` (not queued, not held back or rejected) that a sync would refuse as a
 * mass delete, as sync/mass-delete.ts decides (after pairing renames, as the sync does); [] when it
 * would not refuse.
 */
async function refusedDeletes(layout: Layout, state: SyncState, scope: TeamScope, changes: ReturnType<typeof localChanges>): Promise<string[]> {
  const deletes = changes.filter((c) => c.content === null).map((c) => c.path);
  if (scope.root !== "folder" && liveEntryCount(state) > 0) return deletes;
  if (!isMassDelete(deletes.length, state)) return [];
  const creates = changes.flatMap((c) =>
    c.content !== null && c.sha256 !== null && (state.bases[c.path]?.sha256 ?? null) === null ? [{ path: c.path, sha256: c.sha256, text: c.content }] : [],
  );
  const renamed = new Set((await pairedRenames(layout, state, deletes, creates)).values());
  const left = deletes.filter((path) => !renamed.has(path));
  return isMassDelete(left.length, state) ? left : [];
}

/** The server asked once, shortly (no retry); not asked without a token. */
async function askServer(options: CommonOptions, ctx: CommandContext, config: Config, state: SyncState): Promise<ServerCheck> {
  let token;
  try {
    token = findToken(options, ctx, config);
  } catch (err) {
    if (!(err instanceof ClientError)) throw err;
    return { ...notChecked(err.message), code: err.code };
  }
  if (!token) return notChecked("no token (--token, TEAMMEM_TOKEN or teammem init --token)");
  const api = createApi({
    server: config.server,
    namespace: config.namespace,
    token,
    timeoutMs: PROBE_TIMEOUT_MS,
    replyDeadlineMs: PROBE_REPLY_DEADLINE_MS,
    retry: { limit: 0 },
  });
  return probeServer(api, state, config.namespace);
}

/** When state.json was last written, or null when it was never: the last sync of a folder synced before last-sync.json was kept. */
async function lastSaved(layout: Layout): Promise<string | null> {
  try {
    return (await stat(layout.syncState)).mtime.toISOString();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw err;
  }
}

/** Why the newer server version of `path` is not applied yet: what became of the local edit that kept it out. */
function whyNotApplied(path: string, reports: Reports, outbox: QueuedOperation[], state: SyncState, scope: TeamScope): string {
  const revert = "revert the file to take the server's version";
  if (reports.heldBack.some((h) => h.path === path)) return `your local edit is held back (secret found); remove the secret, or ${revert}`;
  const rejected = reports.rejected.find((r) => r.path === path);
  if (rejected?.code === "forbidden") return `your token is read-only (reader): your local edit is not sent; ${revert}`;
  if (rejected) return `your local edit was rejected (${rejected.code}); change it, or ${revert}`;
  if (outbox.some((q) => q.entry.operation.path === path)) return "your local edit is queued; the server merges it when it is sent";
  if (reports.conflicts.some((c) => c.path === path && c.markers === true)) return "the file still has conflict markers; settle them first, then sync";
  const local = scope.files.get(path)?.sha256 ?? null;
  if (local === (state.bases[path]?.sha256 ?? null)) return "applied by the next sync";
  return "changed locally; the next sync sends it and the server merges it";
}

/**
 * "1 change", "3 changes"; a full page: "more than 20 changes" (the page's count of changes not held
 * here is no total: a pull cut short holds some of the page, try20 F2), or "changes" when this folder
 * holds every change of the page (its own pushes).
 */
function waitingChanges({ changes, more }: { changes: number; more: boolean }): string {
  if (more && changes === 0) return "changes";
  if (more) return `more than ${WAITING_PAGE} changes`;
  return `${changes} change${changes === 1 ? "" : "s"}`;
}

/** Lines of one section of the human output before the rest are counted (`--json` lists them all): try21 F5 printed 3000. */
const MAX_SECTION_LINES = 50;

function formatStatus(s: StatusReport): string {
  const out = [`namespace ${s.namespace} at ${s.server}; cursor ${s.cursor}`];
  if (s.teamFolder !== "folder" && s.trackedEntries > 0)
    out.push(
      `team/ ${s.teamFolder === "missing" ? "is missing" : s.teamFolder === "symlink" ? "is a symlink (not followed)" : "is not a folder"}: ` +
        `sync refuses to run, it would delete all ${s.trackedEntries} tracked entries; restore the folder, or run ` +
        "`teammem sync --allow-mass-delete` if you really mean to delete them",
    );
  if (s.reconcile)
    out.push(`reconciliation with the server due since ${s.reconcile.since} (${s.reconcile.reason}): the next sync compares every entry by content`);
  else if (s.serverCheck.reconcilePending)
    out.push(`reconciliation pending: run teammem sync (${s.serverCheck.reason}); it compares every entry by content`);
  const waiting = s.serverCheck.waiting;
  if (waiting && (waiting.changes > 0 || waiting.more)) out.push(`${waitingChanges(waiting)} waiting on the server (run teammem sync)`);
  const asOf = s.lastSyncAt ? `as of the last sync at ${s.lastSyncAt}` : "never synced";
  const unknown = s.serverCheck.checked && s.serverCheck.reconcilePending === null;
  const refused = isTokenRefusalCode(s.serverCheck.code);
  // Lines before the server check's (team/ missing, a reconciliation due): "everything synced" would contradict them.
  const preamble = out.length;
  // Whenever the server did not tell, the line saying so (and why) heads what is known locally, whatever follows (try21 F1).
  if (!s.serverCheck.checked) out.push(`not checked with the server: ${s.serverCheck.error ?? "--offline"}; ${asOf}:`);
  else if (unknown)
    out.push(
      `${s.serverCheck.reachable === false ? "server not reached" : refused ? "server refused the token" : "server could not tell"}: ${s.serverCheck.error}; ${asOf}:`,
    );
  const header = out.length;
  const section = (title: string, lines: string[]) => {
    if (lines.length === 0) return;
    out.push(`${title}:`, ...lines.slice(0, MAX_SECTION_LINES).map((l) => `  ${l}`));
    if (lines.length > MAX_SECTION_LINES) out.push(`  ... and ${lines.length - MAX_SECTION_LINES} more (teammem status --json lists them all)`);
  };
  section(
    `pending (${s.pending.length} in outbox)`,
    s.pending.map((p) => (p.from ? `rename ${p.from} → ${p.path}` : `${p.kind} ${p.path} (base v${p.baseVersion})`)),
  );
  const massDeleted = new Set(s.refusedDeletes);
  section(
    `deleted here: ${s.refusedDeletes.length} of the ${s.trackedEntries} tracked entries, which sync refuses as a mass delete (nothing is sent; ` +
      "restore the files, or run `teammem sync --allow-mass-delete` if you really mean to delete them for the whole team)",
    s.refusedDeletes,
  );
  section(
    massDeleted.size > 0 ? "changed locally, not queued yet (sent by the first sync not refused as a mass delete)" : "changed locally, not queued yet (run teammem sync)",
    s.modified.filter((p) => !massDeleted.has(p)),
  );
  section(
    "held back (secret found; remove it and sync again, or if it is no secret: teammem sync --allow <fingerprint> --reason false_positive|test_value|will_fix \"why\")",
    s.heldBack.flatMap((h) => [
      ...(h.pathFindings ?? []).map((f) => `${h.path}: path holds ${f.ruleId} (${f.label})`),
      ...h.findings.map((f) => `${h.path}:${f.line} ${f.ruleId} (${f.label}) fingerprint ${f.fingerprint}`),
    ]),
  );
  section(
    "rejected (by the server, or here over its limits)",
    s.rejected.map(
      (r) => `${r.path} ${r.code}: ${r.message}${r.local ? " (refused here, never sent)" : ""}${r.retry ? " (will retry)" : " (not resent until the file changes)"}`,
    ),
  );
  section(
    "conflicts (keep what you want between the <<<<<<< ||||||| ======= >>>>>>> lines and remove them, then sync; or teammem resolve team/<file> --take mine|theirs)",
    s.conflicts.map((c) => {
      const theirs = `${c.author ? `${c.author}'s` : "the server's"} version ${c.headVersion}`;
      const close = c.conflictId ? " and closes the server's conflict record" : "";
      const purged = c.basePurged !== undefined ? `; v${c.basePurged}, the version both started from, was purged from the server's history` : "";
      if (c.state === "markers") return `${c.path}: conflict markers from line ${c.markersAt} (yours and ${theirs}${purged}); not sent until they are gone`;
      if (c.state === "settled") return `${c.path}: settled with ${theirs}; the next sync sends it${close}`;
      return `${c.path}: ${theirs} kept; ${c.copy ? `yours: ${c.copy}` : "your delete was recorded"}`;
    }),
  );
  section(
    "not written (the server's version could not be written here; fix the cause and sync again)",
    s.notWritten.map((n) => `${n.path} (server version ${n.version}): ${n.reason}`),
  );
  section(
    "newer version on the server, not applied here (your local edit was not merged)",
    s.newerOnServer.map((n) => `${n.path} (server version ${n.version}): ${n.reason}`),
  );
  section("skipped (not synced)", s.skipped.map((k) => `${k.path}: ${k.reason}`));
  // "never synced: everything synced" would claim a sync that never happened.
  if (out.length === header && header > preamble)
    out[header - 1] += s.lastSyncAt && !refused && preamble === 1 ? " everything synced" : " nothing pending here";
  else if (out.length === 1) out.push("everything synced");
  section(
    "bypass requests (as of the last sync)",
    s.bypasses.map(
      (b) =>
        `${b.path}:${b.line} ${b.ruleId} (${b.reason}): ` +
        (b.status === "revoked"
          ? `revoked by ${b.revokedBy ?? "an admin"}${b.revokeNote ? `: ${b.revokeNote}` : ""} (held back again)`
          : `${b.status}${b.decidedBy ? ` by ${b.decidedBy}` : ""}${b.note ? `: ${b.note}` : ""}`) +
        (b.status === "pending" ? " (waiting for an admin)" : "") +
        (b.status === "approved" && !b.currentKey ? " (no longer applies: the team's fingerprint key was rotated)" : ""),
    ),
  );
  section("memory warnings (teammem check; they never block a sync)", s.warnings.map(formatWarning));
  return out.join("\n") + "\n";
}
