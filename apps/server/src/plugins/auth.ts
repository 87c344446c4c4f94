import fastifyJwt from "@fastify/jwt";
import { and, eq } from "drizzle-orm";
import type { FastifyInstance, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { LRUCache } from "lru-cache";
import { BEARER_SUBPROTOCOL_PREFIX } from "@teammem/protocol";
import { Refusal } from "../errors/refusal.js";
import { ROLES, type Role, type TokenClaims } from "../auth/auth-context.js";
import { memberships, principals, teams, tokens } from "../db/schema.js";

export interface AuthOptions {
  /** HS256 signing key (the only algorithm accepted on verify). */
  secret: string;
  /** How long a token's row (revocation, role, membership) is trusted after being read, in ms. Default 5000. */
  tokenCacheMs?: number;
}

/** What the database says about one token id, as cached per app instance. */
interface TokenRecord {
  teamId: string;
  teamName: string;
  principalId: string;
  principalName: string;
  role: Role;
  /** The member's current role in the team (null: no longer a member). */
  memberRole: Role | null;
  revoked: boolean;
  expiresAtMs: number | null;
  /** false when the principal's membership in the team was removed. */
  member: boolean;
}

export interface TokenCache {
  /** Drops a token id so the next request re-reads it (e.g. right after revoking it). */
  invalidate(tokenId: string): void;
  /** Drops every cached token (e.g. right after a member's role changed). */
  clear(): void;
}

const RANK: Record<Role, number> = { reader: 0, member: 1, admin: 2 };
/** How far a token's `iat` or `nbf` may lie ahead of this server's clock, in seconds (clock skew between servers). */
const CLOCK_LEEWAY_SECONDS = 60;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Token ids whose rows are kept per app instance; the least recently used beyond it are dropped. */
const MAX_CACHED_TOKENS = 10_000;
/**
 * Most time a verified signature is remembered (fast-jwt's `cacheTTL`), in ms; a token's own `exp`
 * ends it sooner. Only the signature check and decoding are skipped on a hit: the claims checks
 * below and the token's row (revocation, membership, role) run on every request as before.
 */
const VERIFIED_TOKEN_TTL_MS = 10 * 60_000;

/**
 * The request's bearer token: `Authorization: Bearer <token>`, or, on a WebSocket upgrade only, the
 * offered subprotocol `teammem.bearer.<token>` (for clients that cannot set headers). Never the URL.
 */
function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (header !== undefined) {
    const parts = header.split(" ");
    return parts.length === 2 && /^Bearer$/i.test(parts[0]!) && parts[1] ? parts[1] : undefined;
  }
  const protocols = request.headers["sec-websocket-protocol"];
  if (typeof protocols !== "string" || request.headers.upgrade?.toLowerCase() !== "websocket") return undefined;
  const offered = protocols.split(",").map((p) => p.trim()).filter((p) => p.startsWith(BEARER_SUBPROTOCOL_PREFIX));
  return offered.length === 1 ? offered[0]!.slice(BEARER_SUBPROTOCOL_PREFIX.length) || undefined : undefined;
}

/**
 * Verifies the bearer JWT and sets `request.auth`. Adds `app.authenticate` (an onRequest hook for
 * protected routes), `app.requireRole(role)`, `app.tokenCache` and `app.verifyBearer(request)`.
 *
 * A token is accepted only if all hold:
 * - signed with HS256 and `secret` (`alg: none` and every other algorithm are refused);
 * - not expired (`exp`, and `tokens.expires_at`) → else `token_expired`;
 * - `iat` and `nbf` (when present) not more than 60 s ahead of this server's clock → else `token_not_yet_valid`;
 * - its `jti` names a row in `tokens` whose team, principal and role equal the claims → else
 *   `unauthorized` (a token signed with the right key but never issued is refused);
 * - that row is not revoked and the principal is still a member of the team → else `token_revoked`.
 * A verified signature is remembered per app instance until the token's `exp` (at most 10 minutes),
 * so a repeated token skips the HMAC; every other check above runs on each request.
 * The row is re-read at most every `tokenCacheMs` per app instance, so a revocation made by another
 * process (CLI, another instance) takes effect within that time; one made through this instance's
 * admin API at once. The role acted with is the lower of the token's role (as stored at issue
 * time) and the member's current role, so lowering a member's role takes effect on every token.
 * Errors: `unauthorized` (missing, malformed, bad signature, unknown id), `token_expired`, `token_revoked`.
 */
async function auth(app: FastifyInstance, opts: AuthOptions): Promise<void> {
  const cacheMs = opts.tokenCacheMs ?? 5000;
  // A row is trusted for `cacheMs` after it was read (lru-cache's ttl, not refreshed by reads); 0: never cached.
  // A signed id without a row is cached too (wrapped: lru-cache keeps no null).
  const cache = cacheMs > 0 ? new LRUCache<string, { record: TokenRecord | null }>({ max: MAX_CACHED_TOKENS, ttl: cacheMs }) : null;

  await app.register(fastifyJwt, {
    secret: opts.secret,
    sign: { algorithm: "HS256" },
    // nbf is checked in `authenticate` with the same 60 s leeway as iat, and a refusal of its own.
    // fast-jwt's cache of verified tokens: keyed by a hash of the whole token (header, claims and
    // signature), an entry ends at the token's `exp` or after VERIFIED_TOKEN_TTL_MS, whichever is
    // first; failed verifications are not cached. It saves the HMAC and the decoding per request.
    verify: { algorithms: ["HS256"], extractToken: bearerToken, ignoreNotBefore: true, cache: MAX_CACHED_TOKENS, cacheTTL: VERIFIED_TOKEN_TTL_MS },
  });

  async function readToken(tokenId: string): Promise<TokenRecord | null> {
    const hit = cache?.get(tokenId);
    if (hit) return hit.record;
    const [row] = await app.db
      .select({
        teamId: tokens.teamId,
        teamName: teams.name,
        principalId: tokens.principalId,
        principalName: principals.name,
        role: tokens.role,
        revokedAt: tokens.revokedAt,
        expiresAt: tokens.expiresAt,
        memberRole: memberships.role,
      })
      .from(tokens)
      .innerJoin(teams, eq(teams.id, tokens.teamId))
      .innerJoin(principals, eq(principals.id, tokens.principalId))
      .leftJoin(memberships, and(eq(memberships.teamId, tokens.teamId), eq(memberships.principalId, tokens.principalId)))
      .where(eq(tokens.id, tokenId));
    const record: TokenRecord | null = row
      ? {
          teamId: row.teamId,
          teamName: row.teamName,
          principalId: row.principalId,
          principalName: row.principalName,
          role: row.role as Role,
          memberRole: (row.memberRole as Role | null) ?? null,
          revoked: row.revokedAt !== null,
          expiresAtMs: row.expiresAt ? row.expiresAt.getTime() : null,
          member: row.memberRole !== null,
        }
      : null;
    cache?.set(tokenId, { record });
    return record;
  }

  // Each request's bearer token is verified once, whoever asks first (the rate limiter keys on it).
  const verified = new WeakMap<FastifyRequest, Promise<TokenClaims>>();
  const verifyBearer = (request: FastifyRequest): Promise<TokenClaims> => {
    let claims = verified.get(request);
    if (!claims) {
      claims = request.jwtVerify<TokenClaims>();
      verified.set(request, claims);
    }
    return claims;
  };
  app.decorate("verifyBearer", verifyBearer);
  app.decorate("tokenCache", { invalidate: (tokenId: string) => void cache?.delete(tokenId), clear: () => cache?.clear() } satisfies TokenCache);
  app.decorateRequest("auth", null as unknown as FastifyRequest["auth"]);
  app.decorate("authenticate", async (request: FastifyRequest) => {
    let claims: TokenClaims;
    try {
      claims = await verifyBearer(request);
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === "FST_JWT_AUTHORIZATION_TOKEN_EXPIRED") throw new Refusal("token_expired", "the token has expired");
      throw new Refusal("unauthorized", "a valid bearer token is required");
    }
    const nowSeconds = Date.now() / 1000;
    const { iat, nbf } = claims as { iat?: unknown; nbf?: unknown };
    if ((iat !== undefined && typeof iat !== "number") || (nbf !== undefined && typeof nbf !== "number")) {
      throw new Refusal("unauthorized", "a valid bearer token is required");
    }
    if (typeof iat === "number" && iat > nowSeconds + CLOCK_LEEWAY_SECONDS) {
      throw new Refusal("token_not_yet_valid", "the token says it was issued in the future: check the servers' clocks");
    }
    if (typeof nbf === "number" && nbf > nowSeconds + CLOCK_LEEWAY_SECONDS) throw new Refusal("token_not_yet_valid", "the token is not valid yet (nbf)");
    if (typeof claims.jti !== "string" || !UUID.test(claims.jti) || !ROLES.includes(claims.role)) {
      throw new Refusal("unauthorized", "a valid bearer token is required");
    }
    const record = await readToken(claims.jti);
    if (!record || record.teamId !== claims.team || record.principalId !== claims.sub || record.role !== claims.role) {
      throw new Refusal("unauthorized", "a valid bearer token is required");
    }
    if (record.expiresAtMs !== null && record.expiresAtMs <= Date.now()) throw new Refusal("token_expired", "the token has expired");
    if (record.revoked) throw new Refusal("token_revoked", "the token has been revoked");
    if (!record.member) throw new Refusal("token_revoked", "the token's user is no longer a member of the team");
    request.auth = {
      teamId: record.teamId,
      teamName: record.teamName,
      principalId: record.principalId,
      principalName: record.principalName,
      role: RANK[record.memberRole!] < RANK[record.role] ? record.memberRole! : record.role,
      tokenId: claims.jti,
      expiresAtMs: record.expiresAtMs,
    };
  });
  app.decorate("requireRole", (role: Role) => async (request: FastifyRequest) => {
    if (!request.auth) throw new Refusal("unauthorized", "a valid bearer token is required");
    if (RANK[request.auth.role] < RANK[role]) throw new Refusal("forbidden", `this action needs the ${role} role`);
  });
}

declare module "fastify" {
  interface FastifyInstance {
    authenticate: (request: FastifyRequest) => Promise<void>;
    requireRole: (role: Role) => (request: FastifyRequest) => Promise<void>;
    tokenCache: TokenCache;
    /**
     * The verified claims of the request's bearer token (signature and `exp` only; no database
     * check), computed once per request. Rejects like `request.jwtVerify()`.
     */
    verifyBearer: (request: FastifyRequest) => Promise<TokenClaims>;
  }
}

export default fp(auth, { name: "teammem-auth" });
