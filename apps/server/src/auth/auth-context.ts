/** Who is calling, as established by the auth plugin from a verified, unrevoked JWT. */
export type Role = "admin" | "member" | "reader";
export const ROLES = ["admin", "member", "reader"] as const satisfies readonly Role[];

export interface AuthContext {
  readonly teamId: string;
  readonly teamName: string;
  readonly principalId: string;
  readonly principalName: string;
  readonly role: Role;
  /** The token's `jti`. */
  readonly tokenId: string;
  /** When the token expires (epoch ms), or null for a token without expiry. */
  readonly expiresAtMs: number | null;
}

/** Claims of a teammem JWT (besides iat/exp). */
export interface TokenClaims {
  /** principal id */
  sub: string;
  /** principal name, for display */
  name: string;
  /** team id */
  team: string;
  teamName: string;
  role: Role;
  jti: string;
}

declare module "fastify" {
  interface FastifyRequest {
    /** Set by the auth plugin on every authenticated route; absent on public routes. */
    auth: AuthContext;
  }
}
