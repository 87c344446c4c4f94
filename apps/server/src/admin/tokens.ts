import { createSigner } from "fast-jwt";
import type { Db } from "../db/database.js";
import { tokens } from "../db/schema.js";
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
