/**
 * Bypass requests of a sync: `teammem sync --allow <fingerprint> --reason <why> [text]` asks the
 * server to let a held-back secret through for the team (where it is and why; never the value),
 * and every sync refreshes the state of this folder's pending and approved requests for `status`.
 */
import type { Bypass, BypassReason } from "@teammem/protocol";
import { NetworkError, ServerError, UsageError } from "../errors.js";
import { readTeamFile } from "../local/team-files.js";
import { loadBypasses, saveBypasses, type StoredBypass } from "../state/bypasses.js";
import { displayPath } from "../state/layout.js";
import { redact } from "@teammem/scanner";
import type { SyncContext } from "./context.js";
import { scanTeamFile } from "./scan-team-file.js";
import { refreshScanPolicy } from "./scan-policy.js";

/** What the user asked for with `--allow` and `--reason`. */
export interface AllowRequest {
  /** 32 lowercase hex digits, as `status` and the held-back lines show it. */
  readonly fingerprint: string;
  readonly reason: BypassReason;
  readonly reasonText?: string;
}

const stored = (b: Bypass, path: string): StoredBypass => ({
  id: b.id,
  path,
  line: b.line,
  ruleId: b.ruleId,
  fingerprint: b.fingerprint,
  reason: b.reason,
  reasonText: b.reasonText,
  status: b.status,
  requestedAt: b.requestedAt,
  decidedBy: b.decidedBy,
  note: b.note,
  revokedBy: b.revokedBy,
  revokeNote: b.revokeNote,
  currentKey: b.currentKey,
});

/**
 * Finds the held-back team file whose content holds a secret with `allow.fingerprint` (scanned now,
 * with the team's current key), sends the request and records it in `.teammem/bypasses.json`. When
 * the team's policy approves it at once, the scan policy is fetched again so this run sends the file.
 * @returns the request as the server answered.
 * @throws UsageError (exit 2) when no held-back file holds that fingerprint, or only in its path;
 *   NetworkError / ServerError from the request (e.g. `forbidden` for a reader, `fingerprint_key_stale`).
 */
export async function sendBypassRequest(ctx: SyncContext, allow: AllowRequest): Promise<StoredBypass> {
  if (ctx.scanKey.fingerprintKeyId === null) {
    throw new UsageError("the team's fingerprint key is not known yet (the server was not reached); run teammem sync, then try again");
  }
  for (const held of ctx.reports.heldBack) {
    if (held.pathFindings?.some((f) => f.fingerprint === allow.fingerprint)) {
      throw new UsageError(`${displayPath(held.path)}: the secret is in the file's name, which is never let through; rename the file`);
    }
    const file = await readTeamFile(ctx.layout, held.path);
    if (file.kind !== "file") continue;
    const finding = scanTeamFile(held.path, file.content, ctx.scanKey.fingerprintKey).findings.find((f) => f.fingerprint === allow.fingerprint);
    if (!finding) continue;
    const { bypass } = await ctx.api.requestBypass({
      namespace: ctx.config.namespace,
      // The entry path (`ci.md`), as the server stores and audits it; redacted like a block report's
      // (the server redacts it again). Older clients sent `team/ci.md`, which the server still takes.
      path: redact(held.path),
      ruleId: finding.ruleId,
      line: finding.line,
      column: finding.column,
      fingerprint: finding.fingerprint,
      fingerprintKeyId: ctx.scanKey.fingerprintKeyId,
      reason: allow.reason,
      ...(allow.reasonText !== undefined ? { reasonText: allow.reasonText } : {}),
      clientId: ctx.config.clientId,
    });
    const entry = stored(bypass, held.path);
    const others = (await loadBypasses(ctx.layout)).filter((b) => b.id !== entry.id);
    await saveBypasses(ctx.layout, [...others, entry]);
    if (entry.status === "approved") await refreshScanPolicy(ctx);
    return entry;
  }
  throw new UsageError(
    `no held-back team file holds a secret with fingerprint ${allow.fingerprint}; teammem status lists the held-back findings with their fingerprints`,
  );
}

/** States the server may still change: a pending request is decided, an approval revoked (or its key rotated away). */
const mayChange = (b: StoredBypass) => b.status === "pending" || b.status === "approved";

/**
 * The server's state of the requests `ids` (the caller's), read from the list of the caller's
 * requests page by page (newest first) until every one is found or the list ends: one request per
 * 500 of the caller's requests, not one per request of the folder (approvals accumulate). An id the
 * server no longer has is absent. On a failure (NetworkError, ServerError), what the pages read so far found.
 */
async function readBypasses(ctx: SyncContext, ids: ReadonlySet<string>): Promise<Map<string, Bypass>> {
  const found = new Map<string, Bypass>();
  let before: string | undefined;
  try {
    do {
      const page = await ctx.api.bypasses(before);
      for (const b of page.bypasses) if (ids.has(b.id)) found.set(b.id, b);
      before = page.nextBefore ?? undefined;
    } while (before !== undefined && found.size < ids.size);
  } catch (err) {
    if (!(err instanceof NetworkError || err instanceof ServerError)) throw err;
  }
  return found;
}

/**
 * Asks the server for the state of each pending or approved request of this folder and records
 * changes: an approval or denial is a `bypass-decided` event (an approval also refreshes the scan
 * policy, so this run sends the file); a revocation is a `bypass-revoked` event, once (files holding that
 * secret are held back again: the scan policy fetched before this already lacks it); an approval
 * whose fingerprint key was rotated away is a warning line, once. A request the server no longer
 * lists for this caller is left as it was; so is every request not read when a failure stopped
 * the reading: the next sync asks again.
 */
export async function refreshBypasses(ctx: SyncContext): Promise<void> {
  const all = await loadBypasses(ctx.layout);
  let changed = false;
  let approved = false;
  const open = new Set(all.filter(mayChange).map((b) => b.id));
  if (open.size === 0) return;
  const found = await readBypasses(ctx, open);
  for (const [i, b] of all.entries()) {
    const bypass = found.get(b.id);
    if (bypass === undefined) continue;
    const next = stored(bypass, b.path);
    if (next.status === b.status && next.currentKey === b.currentKey && next.revokeNote === b.revokeNote) continue;
    all[i] = next;
    changed = true;
    const where = `${displayPath(b.path)}:${b.line} ${b.ruleId}`;
    if (next.status === "revoked") {
      ctx.events.push({ type: "bypass-revoked", path: displayPath(b.path), line: b.line, ruleId: b.ruleId, by: next.revokedBy ?? "", note: next.revokeNote });
    } else if (next.status !== b.status && (next.status === "approved" || next.status === "denied")) {
      if (next.status === "approved") approved = true;
      ctx.events.push({ type: "bypass-decided", path: displayPath(b.path), line: b.line, ruleId: b.ruleId, status: next.status, by: next.decidedBy ?? "", note: next.note });
    }
    if (next.status === "approved" && !next.currentKey && b.currentKey) {
      ctx.warn(`bypass for ${where} no longer applies: the team's fingerprint key was rotated; files holding that secret are held back again (ask again with teammem sync --allow)`);
    }
  }
  if (changed) await saveBypasses(ctx.layout, all);
  if (approved) await refreshScanPolicy(ctx);
}
