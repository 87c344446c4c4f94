import { and, desc, eq, lt } from "drizzle-orm";
import type { Db, Tx } from "../db/database.js";
import { auditEvents } from "../db/schema.js";

/** Admin actions recorded in the audit log (the store records upload_rejected / client_blocked). */
export type AdminAuditKind = "token_issued" | "token_revoked";

/**
 * Records an admin action by `actorName` (a user, or "cli" for the server's command line).
 * Metadata only: `code` holds the token id (GET /v1/admin/tokens names its user and role), never
 * a token value.
 */
export async function recordAdminEvent(
  db: Db | Tx,
  event: { teamId: string; kind: AdminAuditKind; tokenId: string; actorId?: string | null; actorName: string },
): Promise<void> {
  await db.insert(auditEvents).values({
    teamId: event.teamId,
    kind: event.kind,
    code: event.tokenId,
    principalId: event.actorId ?? null,
    principalName: event.actorName,
  });
}

/** A page of team `teamId`'s audit events, newest first, with ids below `before` if given. */
export async function listAuditEvents(db: Db | Tx, teamId: string, opts: { limit: number; before?: number | undefined }) {
  const where = opts.before ? and(eq(auditEvents.teamId, teamId), lt(auditEvents.id, opts.before)) : eq(auditEvents.teamId, teamId);
  return db.select().from(auditEvents).where(where).orderBy(desc(auditEvents.id)).limit(opts.limit);
}
