import { and, desc, eq, sql } from "drizzle-orm";
import { createSigner } from "fast-jwt";
import type { Db, Tx } from "../db/database.js";
import { principals, tokens } from "../db/schema.js";
import type { Role, TokenClaims } from "../auth/auth-context.js";
import { ensureMember, ensureTeam } from "./teams.js";

export interface IssueTokenInput {
  teamName: string;
  userName: string;
  role: Role;
  /** Lifetime in seconds; undefined: no expiry. */
  expiresInSeconds?: number;
}

/**
 * Creates team and member if needed, records a token id and signs a JWT (HS256) with `secret`.
 * @returns the compact JWT and its id.
 */
export async function issueToken(db: Db, secret: string, input: IssueTokenInput): Promise<{ token: string; tokenId: string }> {
  const teamId = await ensureTeam(db, input.teamName);
  const principalId = await ensureMember(db, teamId, input.userName, input.role);
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
  return { token: sign(claims), tokenId: row!.id };
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
 * Revokes token `tokenId`; revoking a revoked token keeps its first revocation time.
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

/** True if an admin token was ever issued on this database (revoked ones count). */
export async function anyAdminTokenIssued(db: Db | Tx): Promise<boolean> {
  const [row] = await db.select({ id: tokens.id }).from(tokens).where(eq(tokens.role, "admin")).limit(1);
  return row !== undefined;
}
