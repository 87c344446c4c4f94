import { and, desc, eq, sql } from "drizzle-orm";
import { createSigner } from "fast-jwt";
import type { Db, Tx } from "../db/database.js";
import { principals, tokens } from "../db/schema.js";
import type { Role, TokenClaims } from "../auth/auth-context.js";
import { recordAuditEvent, type Actor } from "../audit/events.js";
import { ensureMember, ensureTeam, type MembershipChange } from "./teams.js";

export interface IssueTokenInput {
  teamName: string;
  userName: string;
  role: Role;
  /** Lifetime in seconds; undefined: no expiry. */
  expiresInSeconds?: number;
}

/** An issued token, and what issuing it changed besides. */
export interface IssuedToken {
  /** The compact JWT: shown once, never stored. */
  readonly token: string;
  readonly tokenId: string;
  readonly teamId: string;
  /** Whether the team was created for this token. */
  readonly teamCreated: boolean;
  readonly membership: MembershipChange;
}

/**
 * Creates team and member if needed, records a token id and signs a JWT (HS256) with `secret`.
 * Records no audit event: every path of the server issues through {@link issueAuditedToken}; this
 * one is for test fixtures.
 * @returns the compact JWT, its id, and what else changed.
 */
export async function issueToken(db: Db | Tx, secret: string, input: IssueTokenInput): Promise<IssuedToken> {
  const { teamId, created: teamCreated } = await ensureTeam(db, input.teamName);
  const membership = await ensureMember(db, teamId, input.userName, input.role);
  const principalId = membership.principalId;
  const expiresAt = input.expiresInSeconds ? new Date(Date.now() + input.expiresInSeconds * 1000) : null;
  const [row] = await db
    .insert(tokens)
    .values({ teamId, principalId, role: input.role, expiresAt })
    .returning({ id: tokens.id });
  const claims: TokenClaims = {
    sub: principalId,
    name: input.userName,
    team: teamId,
    teamName: input.teamName,
    role: input.role,
    jti: row!.id,
  };
  const sign = createSigner({
    key: secret,
    algorithm: "HS256",
    ...(input.expiresInSeconds ? { expiresIn: input.expiresInSeconds * 1000 } : {}),
  });
  return { token: sign(claims), tokenId: row!.id, teamId, teamCreated, membership };
}

/**
 * {@link issueToken} with its audit events, by `actor`, in one transaction: `team_created` when
 * the team is new, `member_added` when the user is (or `member_role_changed` when the token's role
 * raised the membership's), and `token_issued`. Never the token itself.
 * @returns the compact JWT, its id and the team's id.
 */
export async function issueAuditedToken(db: Db, secret: string, input: IssueTokenInput, actor: Actor): Promise<{ token: string; tokenId: string; teamId: string }> {
  return db.transaction(async (tx) => {
    const issued = await issueToken(tx, secret, input);
    const { teamId, membership } = issued;
    const targetUser = input.userName;
    if (issued.teamCreated) await recordAuditEvent(tx, { teamId, actor, kind: "team_created" });
    if (membership.added) await recordAuditEvent(tx, { teamId, actor, kind: "member_added", targetUser, role: input.role });
    if (membership.previousRole !== null) {
      await recordAuditEvent(tx, { teamId, actor, kind: "member_role_changed", targetUser, role: input.role, previousRole: membership.previousRole });
    }
    await recordAuditEvent(tx, { teamId, actor, kind: "token_issued", tokenId: issued.tokenId, targetUser, role: input.role });
    return { token: issued.token, tokenId: issued.tokenId, teamId };
  });
}

export interface TokenRow {
  tokenId: string;
  user: string;
  role: Role;
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
}

/** Tokens of team `teamId`, newest first (ids and metadata; token values are never stored). */
export async function listTokens(db: Db | Tx, teamId: string): Promise<TokenRow[]> {
  const rows = await db
    .select({
      tokenId: tokens.id,
      user: principals.name,
      role: tokens.role,
      createdAt: tokens.createdAt,
      expiresAt: tokens.expiresAt,
      revokedAt: tokens.revokedAt,
    })
    .from(tokens)
    .innerJoin(principals, eq(principals.id, tokens.principalId))
    .where(eq(tokens.teamId, teamId))
    .orderBy(desc(tokens.createdAt), desc(tokens.id));
  return rows.map((r) => ({ ...r, role: r.role as Role }));
}

/**
 * Revokes token `tokenId`; revoking a revoked token keeps its first revocation time. Records no
 * audit event: the server and its CLI revoke through {@link revokeAuditedToken}.
 * @param teamId when given, only a token of that team is found (another team's token is "not found").
 * @returns the token's team, principal, role and revocation time, or null if there is no such token.
 */
export async function revokeToken(
  db: Db | Tx,
  tokenId: string,
  teamId?: string,
): Promise<{ teamId: string; principalId: string; user: string; role: Role; revokedAt: Date } | null> {
  const where = teamId ? and(eq(tokens.id, tokenId), eq(tokens.teamId, teamId)) : eq(tokens.id, tokenId);
  await db.update(tokens).set({ revokedAt: sql`coalesce(${tokens.revokedAt}, now())` }).where(where);
  const [row] = await db
    .select({ teamId: tokens.teamId, principalId: tokens.principalId, user: principals.name, role: tokens.role, revokedAt: tokens.revokedAt })
    .from(tokens)
    .innerJoin(principals, eq(principals.id, tokens.principalId))
    .where(where);
  return row ? { teamId: row.teamId, principalId: row.principalId, user: row.user, role: row.role as Role, revokedAt: row.revokedAt! } : null;
}

/**
 * {@link revokeToken} with its `token_revoked` event by `actor`, both on `tx`: the caller's
 * transaction, so the revocation and its event commit together or not at all.
 * @returns as {@link revokeToken} (null: no such token, nothing recorded).
 */
export async function revokeAuditedToken(tx: Tx, tokenId: string, actor: Actor, teamId?: string): ReturnType<typeof revokeToken> {
  const revoked = await revokeToken(tx, tokenId, teamId);
  if (revoked) await recordAuditEvent(tx, { teamId: revoked.teamId, actor, kind: "token_revoked", tokenId, targetUser: revoked.user, role: revoked.role });
  return revoked;
}

/** True if an admin token was ever issued on this database (revoked ones count). */
export async function anyAdminTokenIssued(db: Db | Tx): Promise<boolean> {
  const [row] = await db.select({ id: tokens.id }).from(tokens).where(eq(tokens.role, "admin")).limit(1);
  return row !== undefined;
}
