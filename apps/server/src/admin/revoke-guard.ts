/**
 * Revocation through the admin API that cannot lock a team out: revoking the team's last valid
 * (unrevoked, unexpired) admin token is refused with `last_admin_token` unless forced. The CLI's
 * `token revoke` does not use this guard (it is the recovery path on the server's database).
 */
import { and, eq, gt, isNull, or, sql } from "drizzle-orm";
import type { Actor } from "../audit/events.js";
import type { Db } from "../db/database.js";
import { tokens } from "../db/schema.js";
import { Refusal } from "../errors/refusal.js";
import { revokeAuditedToken, type revokeToken } from "./tokens.js";

/**
 * Revokes token `tokenId` of team `teamId`, with its `token_revoked` event by `actor`, in one
 * transaction that first locks the team's valid admin tokens (`FOR UPDATE`), so two concurrent
 * revocations cannot both remove "the other" last one.
 * @returns as {@link revokeToken} (null: no such token in the team).
 * @throws Refusal last_admin_token (409, details `{ tokenId }`) when `tokenId` is the team's only
 *   valid admin token and `force` is false.
 */
export async function revokeTokenGuarded(db: Db, tokenId: string, teamId: string, force: boolean, actor: Actor): ReturnType<typeof revokeToken> {
  return db.transaction(async (tx) => {
    if (!force) {
      const validAdmins = await tx
        .select({ id: tokens.id })
        .from(tokens)
        .where(and(eq(tokens.teamId, teamId), eq(tokens.role, "admin"), isNull(tokens.revokedAt), or(isNull(tokens.expiresAt), gt(tokens.expiresAt, sql`now()`))))
        .for("update");
      if (validAdmins.length === 1 && validAdmins[0]!.id === tokenId) {
        throw new Refusal(
          "last_admin_token",
          "this is the team's last valid admin token; revoking it would lock every admin out. Issue another admin token first, or send ?force=true",
          { tokenId },
        );
      }
    }
    return revokeAuditedToken(tx, tokenId, actor, teamId);
  });
}
