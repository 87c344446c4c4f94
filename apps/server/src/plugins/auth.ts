import fastifyJwt from "@fastify/jwt";
import type { FastifyInstance, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { ApiError } from "../errors.js";
import type { Role, TokenClaims } from "../auth/auth-context.js";

export interface AuthOptions {
  /** HS256 signing key. */
  secret: string;
}

const RANK: Record<Role, number> = { reader: 0, member: 1, admin: 2 };

/**
 * Verifies the bearer JWT (HS256 only) and sets `request.auth`. Adds `app.authenticate` (an
 * onRequest hook for protected routes) and `app.requireRole(role)`.
 * Errors: `unauthorized` (missing/malformed/bad signature), `token_expired`.
 */
async function auth(app: FastifyInstance, opts: AuthOptions): Promise<void> {
  await app.register(fastifyJwt, {
    secret: opts.secret,
    sign: { algorithm: "HS256" },
    verify: { algorithms: ["HS256"] },
  });
  app.decorateRequest("auth", null as unknown as FastifyRequest["auth"]);
  app.decorate("authenticate", async (request: FastifyRequest) => {
    let claims: TokenClaims;
    try {
      claims = await request.jwtVerify<TokenClaims>();
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === "FST_JWT_AUTHORIZATION_TOKEN_EXPIRED") throw new ApiError("token_expired", "the token has expired");
      throw new ApiError("unauthorized", "a valid bearer token is required");
    }
    request.auth = {
      teamId: claims.team,
      teamName: claims.teamName,
      principalId: claims.sub,
      principalName: claims.name,
      role: claims.role,
      tokenId: claims.jti,
    };
  });
  app.decorate("requireRole", (role: Role) => async (request: FastifyRequest) => {
    if (RANK[request.auth.role] < RANK[role]) throw new ApiError("forbidden", `this action needs the ${role} role`);
  });
}

declare module "fastify" {
  interface FastifyInstance {
    authenticate: (request: FastifyRequest) => Promise<void>;
    requireRole: (role: Role) => (request: FastifyRequest) => Promise<void>;
  }
}

export default fp(auth, { name: "teammem-auth" });
