import Fastify, { type FastifyInstance, type FastifyServerOptions } from "fastify";
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from "fastify-type-provider-zod";
import type { Db } from "./db/database.js";
import { ApiError } from "./errors.js";
import { DEFAULT_LIMITS, type Limits } from "./limits.js";
import auth from "./plugins/auth.js";

export interface AppOptions {
  /** Open, migrated database; owned and closed by the caller. */
  db: Db;
  /** HS256 key for JWTs. */
  jwtSecret: string;
  /** Key for scanner fingerprints (HMAC). */
  fingerprintKey: string;
  limits?: Partial<Limits>;
  logger?: FastifyServerOptions["logger"];
}

/** Builds the server without listening. Reads no env; call once per test. */
export async function buildApp(opts: AppOptions): Promise<FastifyInstance> {
  const limits: Limits = { ...DEFAULT_LIMITS, ...opts.limits };
  const app = Fastify({ logger: opts.logger ?? false, bodyLimit: limits.maxBodyBytes }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.decorate("db", opts.db);
  app.decorate("limits", limits);
  app.decorate("fingerprintKey", opts.fingerprintKey);
  app.setErrorHandler((err: Error & { statusCode?: number; validation?: unknown }, request, reply) => {
    if (err instanceof ApiError) {
      return reply.status(err.statusCode).send({ code: err.code, message: err.message, ...(err.details ? { details: err.details } : {}) });
    }
    if (err.validation) return reply.status(400).send({ code: "invalid_request", message: err.message });
    request.log.error({ err }, "request failed");
    return reply.status(500).send({ code: "internal_error", message: "internal error" });
  });
  await app.register(auth, { secret: opts.jwtSecret });
  app.get("/healthz", async () => ({ ok: true }));
  return app;
}

declare module "fastify" {
  interface FastifyInstance {
    db: Db;
    limits: Limits;
    fingerprintKey: string;
  }
}
