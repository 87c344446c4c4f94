import rateLimit from "@fastify/rate-limit";
import type { FastifyInstance, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { Refusal } from "../errors/refusal.js";

export interface RateLimitOptions {
  /** Requests per key per window; 0 disables the limit. */
  max: number;
  windowMs: number;
}

/**
 * Limits requests per token: the key is the token id (`jti`) when the request carries a bearer
 * token with a valid signature, otherwise the client IP. Counters live in memory on this instance.
 * An exceeded limit answers 429 `rate_limited` with `Retry-After` (seconds) and
 * `details: { limit, windowMs, retryAfterMs }`. Routes opt out with `config: { rateLimit: false }`.
 */
async function limiter(app: FastifyInstance, opts: RateLimitOptions): Promise<void> {
  if (opts.max <= 0) return;
  const keyOf = async (request: FastifyRequest): Promise<string> => {
    const header = request.headers.authorization;
    if (header?.startsWith("Bearer ")) {
      try {
        const claims: { jti?: unknown } = await app.verifyBearer(request);
        if (typeof claims.jti === "string") return `token:${claims.jti}`;
      } catch {
        // not a valid token: counted against the address
      }
    }
    return `ip:${request.ip}`;
  };
  await app.register(rateLimit, {
    global: false,
    max: opts.max,
    timeWindow: opts.windowMs,
    keyGenerator: keyOf,
    // Retry-After comes from the error handler, as the registry says for rate_limited.
    addHeaders: { "retry-after": false },
    errorResponseBuilder: (_request, context) =>
      new Refusal("rate_limited", `too many requests: at most ${opts.max} per ${opts.windowMs} ms; retry after ${context.after}`, {
        limit: opts.max,
        windowMs: opts.windowMs,
        retryAfterMs: context.ttl,
      }),
  });
  // One root hook rather than the plugin's per-route ones: those run after the routes' own
  // onRequest hooks (authentication), so refused tokens would never be counted.
  const check = app.rateLimit();
  app.addHook("onRequest", async (request, reply) => {
    if ((request.routeOptions.config as { rateLimit?: unknown } | undefined)?.rateLimit === false) return;
    await check.call(app, request, reply);
  });
}

export default fp(limiter, { name: "teammem-rate-limit", dependencies: ["teammem-auth"] });
