/**
 * The check of a clean three-way merge before it is stored (store/apply-operation.ts, and a put that
 * followed a rename, store/apply-rename.ts): each edit passed the scan on upload, but together they
 * can hold a credential (a key id added by one teammate, its secret by another) or exceed the entry
 * limit. Such a merge is not stored: the operation ends as a conflict whose result says why
 * (`code`), and a credential is audited as `merge_holds_credential` (metadata only).
 */
import type { MergeRefusalCode, WireFinding } from "@teammem/protocol";
import { scan } from "@teammem/scanner";
import { recordAuditEvent } from "../audit/events.js";
import type { Tx } from "../db/database.js";
import type { AuditedFindings } from "./validate-content.js";
import type { WriteContext } from "./write-context.js";

/** Why a clean merge may not be stored; `audit` (keyed fingerprints) never goes into a reply. */
export type MergeRefusal = { code: "entry_too_large" } | { code: "merge_holds_credential"; audit: AuditedFindings };

/** The refusal of storing `merged` (a clean merge), or null when it may be stored. */
export function checkMerged(ctx: WriteContext, merged: string): MergeRefusal | null {
  if (Buffer.byteLength(merged, "utf8") > ctx.limits.maxEntryBytes) return { code: "entry_too_large" };
  const found = scan(merged, { fingerprintKey: ctx.fingerprintKey, allowFingerprints: ctx.allowedFingerprints, allowMarker: false });
  if (found.length === 0) return null;
  return { code: "merge_holds_credential", audit: found.map((f) => ({ ruleId: f.ruleId, label: f.label, line: f.line, column: f.column, fingerprint: f.fingerprint })) };
}

/** The fields a conflict result gets for `refusal`: `{code}`, and `findings` (rule and position only). */
export function conflictReason(refusal: MergeRefusal | null): { code?: MergeRefusalCode; findings?: WireFinding[] } {
  if (refusal === null) return {};
  if (refusal.code === "entry_too_large") return { code: refusal.code };
  return { code: refusal.code, findings: refusal.audit.map((f) => ({ ruleId: f.ruleId, label: f.label, line: f.line, column: f.column })) };
}

/** Records the `merge_holds_credential` event of conflict record `conflictId` at `path` (head `version`); nothing for other refusals. */
export async function auditMergeRefusal(tx: Tx, ctx: WriteContext, refusal: MergeRefusal | null, at: { path: string; conflictId: string; version: number }): Promise<void> {
  if (refusal?.code !== "merge_holds_credential") return;
  await recordAuditEvent(tx, {
    teamId: ctx.namespace.teamId,
    actor: ctx.author,
    kind: "merge_holds_credential",
    namespace: ctx.namespace.name,
    path: at.path,
    conflictId: at.conflictId,
    version: at.version,
    clientId: ctx.clientId,
    findings: refusal.audit,
    fingerprintKeyId: ctx.fingerprintKeyId,
  });
}
