/**
 * Inserts audit events. Metadata only: never content, never a secret value (findings carry rule,
 * position and the keyed fingerprint, nothing else; namespace, path and client id are stored with
 * any credential in them redacted).
 */
import type { Db, Tx } from "../db/database.js";
import { auditEvents } from "../db/schema.js";
import { redactSecrets } from "../secrets/names.js";

export type AuditKind = "upload_rejected" | "client_blocked";

export interface AuditFinding {
  ruleId: string;
  label?: string;
  line: number;
  column: number;
  /** HMAC of the value with the server's (or client's) fingerprint key; lets an admin see repeats. */
  fingerprint?: string;
}

export interface AuditEventInput {
  teamId: string;
  kind: AuditKind;
  namespace?: string | null;
  path?: string | null;
  /** Error code of a refusal, e.g. `secret_detected`. */
  code?: string | null;
  principalId?: string | null;
  principalName?: string | null;
  clientId?: string | null;
  findings?: readonly AuditFinding[] | null;
}

/** Records one audit event; copies only the listed metadata fields of each finding. */
export async function recordAuditEvent(db: Db | Tx, event: AuditEventInput): Promise<void> {
  await db.insert(auditEvents).values({
    teamId: event.teamId,
    kind: event.kind,
    // Names can hold credentials too (a file named after a token): never store one verbatim.
    namespace: event.namespace != null ? redactSecrets(event.namespace) : null,
    path: event.path != null ? redactSecrets(event.path) : null,
    code: event.code ?? null,
    principalId: event.principalId ?? null,
    principalName: event.principalName ?? null,
    clientId: event.clientId != null ? redactSecrets(event.clientId) : null,
    findings: event.findings
      ? event.findings.map((f) => ({
          ruleId: f.ruleId,
          ...(f.label !== undefined ? { label: f.label } : {}),
          line: f.line,
          column: f.column,
          ...(f.fingerprint !== undefined ? { fingerprint: f.fingerprint } : {}),
        }))
      : null,
  });
}
