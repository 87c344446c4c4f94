/** Whether open stream connections' tokens are still good: one query for all of them. */
import { and, eq, inArray } from "drizzle-orm";
import type { Db } from "../db/database.js";
import { memberships, tokens } from "../db/schema.js";

export type TokenVerdict = "ok" | "token_revoked" | "token_expired";

/** Most ids per query (a PostgreSQL statement takes up to 65,535 parameters). */
const BATCH = 5000;

/**
 * The verdict for each of `tokenIds` now: `token_revoked` when the token row is gone or revoked or
 * its principal is no longer a member of its team, `token_expired` when its expiry has passed.
 */
export async function tokenVerdicts(db: Db, tokenIds: readonly string[], nowMs = Date.now()): Promise<Map<string, TokenVerdict>> {
  const verdicts = new Map<string, TokenVerdict>(tokenIds.map((id) => [id, "token_revoked"]));
  for (let i = 0; i < tokenIds.length; i += BATCH) {
    const rows = await db
      .select({ id: tokens.id, revokedAt: tokens.revokedAt, expiresAt: tokens.expiresAt, memberRole: memberships.role })
      .from(tokens)
      .leftJoin(memberships, and(eq(memberships.teamId, tokens.teamId), eq(memberships.principalId, tokens.principalId)))
      .where(inArray(tokens.id, tokenIds.slice(i, i + BATCH)));
    for (const row of rows) {
      if (row.revokedAt !== null || row.memberRole === null) continue;
      verdicts.set(row.id, row.expiresAt !== null && row.expiresAt.getTime() <= nowMs ? "token_expired" : "ok");
    }
  }
  return verdicts;
}
