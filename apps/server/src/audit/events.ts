/**
 * Recording audit events: the one module that inserts into `audit_events`. Metadata only: never
 * content, never a token or secret value (findings carry rule, position and the team-keyed
 * fingerprint; namespace, path, client id and free text are stored with any credential redacted).
 * The actor always comes from the caller's authenticated context, never from a request body.
 */
import type { AuditFinding, BypassPolicy, BypassReason } from "@teammem/protocol";
import type { Role } from "../auth/auth-context.js";
import type { Db, Tx } from "../db/database.js";
import { auditEvents, teams } from "../db/schema.js";
import { redactSecrets } from "../secrets/names.js";

/** Who acted: a principal (id and name at the time), or one of the non-user actors below. */
export interface Actor {
  readonly id: string | null;
  readonly name: string;
}
/** The server's command line, working on the database directly. */
export const CLI_ACTOR: Actor = { id: null, name: "cli" };
/** The team's `immediate` bypass policy, approving a request at once. */
export const POLICY_ACTOR: Actor = { id: null, name: "policy" };
/** The server itself: a scheduled job, the first start's bootstrap (team `default` and its admin token), or a new epoch on finding its database restored. */
export const SERVER_ACTOR: Actor = { id: null, name: "server" };
/** A refused request whose token named nobody the server can trust. */
export const ANONYMOUS_ACTOR: Actor = { id: null, name: "anonymous" };

/** Every event the audit log records, one member per kind (the protocol's `AuditEventKind`). */
export type AuditEventInput = { teamId: string | null; actor: Actor } & (
  | {
      /** The server refused content, a path or a name holding a credential (`code` secret_detected). */
      kind: "upload_rejected" | "client_blocked";
      namespace: string | null;
      path: string | null;
      clientId: string | null;
      findings: readonly AuditFinding[];
      /** The team key the fingerprints were made with; null when they are not kept. */
      fingerprintKeyId: number | null;
    }
  | {
      /** Refused requests of one window, address, code and token, counted. */
      kind: "auth_denied";
      code: string;
      count: number;
      remoteAddress: string;
      tokenId: string | null;
      periodStart: Date;
      periodEnd: Date;
    }
  | { kind: "token_issued" | "token_revoked"; tokenId: string; targetUser: string; role: Role }
  | { kind: "member_role_changed"; targetUser: string; role: Role; previousRole: Role }
  | { kind: "fingerprint_key_rotated"; fingerprintKeyId: number }
  /** A team was created (its first admin's `member_added` and `token_issued` follow). */
  | { kind: "team_created" }
  /** `targetUser` became a member with `role` (by a token issued to them). */
  | { kind: "member_added"; targetUser: string; role: Role }
  /**
   * A new server epoch: an operator's `epoch rotate` (actor `cli`), or the server's own on finding
   * its database restored or replaced (actor `server`); `previousEpoch`: the one it replaced, read
   * under the epoch row's lock. Or an import (`previousEpoch`: the backup's; `count`: rows
   * imported). `reasonText`: the epoch's reason (for the server's own, what changed).
   */
  | { kind: "epoch_rotated"; epoch: string; previousEpoch: string; reasonText: string }
  | { kind: "backup_imported"; epoch: string; previousEpoch: string; count: number; reasonText: string }
  | { kind: "entry_restored"; namespace: string; path: string; version: number; resultVersion: number; clientId: string | null }
  | { kind: "conflict_recorded"; namespace: string; path: string; conflictId: string; version: number; clientId: string | null }
  | {
      /** Two clean edits merged into text holding a credential: not stored, conflict record `conflictId` keeps the edit. */
      kind: "merge_holds_credential";
      namespace: string;
      path: string;
      conflictId: string;
      /** The head version the edit was merged with. */
      version: number;
      clientId: string | null;
      findings: readonly AuditFinding[];
      fingerprintKeyId: number | null;
    }
  | {
      /** A bypass request (`bypass_requested`) or a decision on it; `targetUser` is who requested it. */
      kind: "bypass_requested" | "bypass_approved" | "bypass_denied" | "bypass_revoked";
      bypassId: string;
      namespace: string;
      path: string;
      clientId: string | null;
      ruleId: string;
      line: number;
      column: number | null;
      fingerprint: string;
      fingerprintKeyId: number;
      reason: BypassReason;
      reasonText: string | null;
      targetUser: string;
      /** The team's policy when the request was made (`bypass_requested`, and an approval by policy). */
      policy: BypassPolicy | null;
      /** An admin's note on a decision. */
      note: string | null;
    }
  | { kind: "version_purged"; namespace: string; path: string; version: number; count: number; reasonText: string }
  /** An admin changed the team's bypass policy from `previousPolicy` to `policy`. */
  | { kind: "bypass_policy_changed"; policy: BypassPolicy; previousPolicy: BypassPolicy }
  | { kind: "retention_purge"; count: number; periodEnd: Date }
);

const redacted = (text: string | null | undefined): string | null => (text != null ? redactSecrets(text) : null);

/** Only the listed metadata fields of a finding, whatever the caller's object holds. */
function auditFinding(f: AuditFinding): AuditFinding {
  return {
    ruleId: f.ruleId,
    ...(f.label !== undefined ? { label: f.label } : {}),
    line: f.line,
    ...(f.column !== undefined ? { column: f.column } : {}),
    ...(f.fingerprint !== undefined ? { fingerprint: f.fingerprint } : {}),
  };
}

/** The columns of a recorded conflict, shared by `conflict_recorded` and `merge_holds_credential`. */
function conflictColumns(event: Extract<AuditEventInput, { kind: "conflict_recorded" | "merge_holds_credential" }>) {
  return {
    namespace: redacted(event.namespace),
    path: redacted(event.path),
    conflictId: event.conflictId,
    version: event.version,
    clientId: redacted(event.clientId),
  };
}

/** The columns of one event. */
function columnsOf(event: AuditEventInput): typeof auditEvents.$inferInsert {
  const base = { teamId: event.teamId, kind: event.kind, actorId: event.actor.id, actorName: event.actor.name };
  switch (event.kind) {
    case "upload_rejected":
    case "client_blocked":
      return {
        ...base,
        namespace: redacted(event.namespace),
        path: redacted(event.path),
        clientId: redacted(event.clientId),
        code: "secret_detected",
        findings: event.findings.map(auditFinding),
        fingerprintKeyId: event.fingerprintKeyId,
      };
    case "auth_denied":
      return {
        ...base,
        code: event.code,
        count: event.count,
        remoteAddress: event.remoteAddress,
        tokenId: event.tokenId,
        periodStart: event.periodStart,
        periodEnd: event.periodEnd,
      };
    case "token_issued":
    case "token_revoked":
      return { ...base, tokenId: event.tokenId, targetUser: event.targetUser, role: event.role };
    case "member_role_changed":
      return { ...base, targetUser: event.targetUser, role: event.role, previousRole: event.previousRole };
    case "fingerprint_key_rotated":
      return { ...base, fingerprintKeyId: event.fingerprintKeyId };
    case "team_created":
      return base;
    case "member_added":
      return { ...base, targetUser: event.targetUser, role: event.role };
    case "epoch_rotated":
      return { ...base, epoch: event.epoch, previousEpoch: event.previousEpoch, reasonText: redacted(event.reasonText) };
    case "backup_imported":
      return { ...base, epoch: event.epoch, previousEpoch: event.previousEpoch, count: event.count, reasonText: redacted(event.reasonText) };
    case "entry_restored":
      return {
        ...base,
        namespace: redacted(event.namespace),
        path: redacted(event.path),
        version: event.version,
        resultVersion: event.resultVersion,
        clientId: redacted(event.clientId),
      };
    case "conflict_recorded":
      return { ...base, ...conflictColumns(event) };
    case "merge_holds_credential":
      return {
        ...base,
        ...conflictColumns(event),
        code: "merge_holds_credential",
        findings: event.findings.map(auditFinding),
        fingerprintKeyId: event.fingerprintKeyId,
      };
    case "bypass_requested":
    case "bypass_approved":
    case "bypass_denied":
    case "bypass_revoked":
      return {
        ...base,
        namespace: redacted(event.namespace),
        path: redacted(event.path),
        clientId: redacted(event.clientId),
        findings: [{ ruleId: event.ruleId, line: event.line, ...(event.column !== null ? { column: event.column } : {}), fingerprint: event.fingerprint }],
        fingerprintKeyId: event.fingerprintKeyId,
        bypassId: event.bypassId,
        reason: event.reason,
        reasonText: redacted(event.reasonText),
        targetUser: event.targetUser,
        policy: event.policy,
        note: redacted(event.note),
      };
    case "version_purged":
      return { ...base, namespace: redacted(event.namespace), path: redacted(event.path), version: event.version, count: event.count, reasonText: redacted(event.reasonText) };
    case "bypass_policy_changed":
      return { ...base, policy: event.policy, previousPolicy: event.previousPolicy };
    case "retention_purge":
      return { ...base, count: event.count, periodEnd: event.periodEnd };
  }
}

/** Records one audit event (in `db`'s transaction when given one, so it commits with the action). */
export async function recordAuditEvent(db: Db | Tx, event: AuditEventInput): Promise<void> {
  await db.insert(auditEvents).values(columnsOf(event));
}

/** An event of the whole server: the same for every team. */
type ServerWideEvent = AuditEventInput extends infer E ? (E extends AuditEventInput ? Omit<E, "teamId"> : never) : never;

/**
 * Records an action on the whole server (a new epoch, an import) once per team, so each team's
 * admins see it in their audit log; once under no team when the database has none (only the
 * server's CLI reads those). In `db`'s transaction when given one.
 * @returns how many events were recorded.
 */
export async function recordServerWideAuditEvent(db: Db | Tx, event: ServerWideEvent): Promise<number> {
  const rows = await db.select({ id: teams.id }).from(teams);
  const teamIds = rows.length > 0 ? rows.map((r) => r.id) : [null];
  await db.insert(auditEvents).values(teamIds.map((teamId) => columnsOf({ ...event, teamId } as AuditEventInput)));
  return teamIds.length;
}
