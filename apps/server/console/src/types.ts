/**
 * The API's shapes for the console, taken from @teammem/protocol as types only (erased at
 * compile time: the browser loads no protocol code), and the few constants the console needs.
 */
import type { AuditEvent, AuditEventKind, AuditEventList, AuditSummary } from "@teammem/protocol";

export type AuditEventT = AuditEvent;
export type AuditEventListT = AuditEventList;
export type AuditSummaryT = AuditSummary;

/** Every audit event kind (the object form makes the compiler check the list is complete). */
const KINDS: Record<AuditEventKind, true> = {
  upload_rejected: true,
  client_blocked: true,
  auth_denied: true,
  token_issued: true,
  token_revoked: true,
  member_role_changed: true,
  fingerprint_key_rotated: true,
  team_created: true,
  member_added: true,
  epoch_rotated: true,
  backup_imported: true,
  entry_restored: true,
  conflict_recorded: true,
  merge_holds_credential: true,
  bypass_requested: true,
  bypass_approved: true,
  bypass_denied: true,
  bypass_revoked: true,
  bypass_policy_changed: true,
  version_purged: true,
  retention_purge: true,
};
export const AUDIT_EVENT_KINDS_LIST = Object.keys(KINDS) as AuditEventKind[];
