import Fastify, { type FastifyInstance, type FastifyServerOptions } from "fastify";
import { MAX_NAMESPACE_LENGTH } from "@teammem/protocol";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import type { Db } from "./db/database.js";
import { IdentityCache } from "./identity/identity-cache.js";
import { DEFAULT_LIMITS, type Limits } from "./limits.js";
import { loggerOptions } from "./logging.js";
import adminConsole from "./plugins/console.js";
import audit, { DEFAULT_AUDIT_OPTIONS, type AuditOptions } from "./plugins/audit.js";
import operationRetention, { DEFAULT_OPERATION_RETENTION, type OperationRetentionOptions } from "./plugins/operation-retention.js";
import auth from "./plugins/auth.js";
import docs from "./plugins/docs.js";
import errors, { frameworkErrors } from "./plugins/errors.js";
import live from "./plugins/live.js";
import { DEFAULT_LIVE_OPTIONS, type LiveOptions } from "./live/change-hub.js";
import rateLimit from "./plugins/rate-limit.js";
import metrics from "./plugins/metrics.js";
import readiness from "./plugins/readiness.js";
import shutdown from "./plugins/shutdown.js";
import teamPolicy from "./plugins/team-policy.js";
import wellFormed from "./plugins/well-formed.js";
import adminRoutes from "./routes/admin/index.js";
import namespaceRoutes from "./routes/namespaces/index.js";
import teamRoutes from "./routes/team/index.js";
import serverRoutes from "./routes/server/index.js";
import { clientErrorHandler, RepliesInFlight } from "./http/client-error.js";
import { createReplySerializerCompiler } from "./http/reply-serializer.js";
import { wellFormedValidator } from "./http/validator.js";

export interface AppOptions {
  /** Open, migrated database; owned and closed by the caller. */
  db: Db;
  /** HS256 key for JWTs (see settings.ts `loadServerSecrets`). */
  jwtSecret: string;
  limits?: Partial<Limits>;
  /** Pino options or true/false; the Authorization header is always redacted. Default: off. */
  logger?: FastifyServerOptions["logger"];
  /** How long a token's revocation state is cached per instance, in ms. Default 5000. */
  tokenCacheMs?: number;
  /** How long a team's fingerprint key is cached per instance, in ms (a rotation elsewhere shows within it). Default 5000. */
  policyCacheMs?: number;
  /** Audit retention and `auth_denied` counting (defaults: DEFAULT_AUDIT_OPTIONS: 365 days, hourly, 60 s windows). */
  audit?: Partial<AuditOptions>;
  /** Retention of stored operation results (idempotency keys) (defaults: DEFAULT_OPERATION_RETENTION: 90 days, hourly). */
  operationRetention?: Partial<OperationRetentionOptions>;
  /** Rows per query of an audit export (default 1000). */
  auditExportBatchSize?: number;
  /** Export the process's CPU, memory, event-loop and GC metrics on /metrics too (the CLI's start does). Default false. */
  processMetrics?: boolean;
  /** How long the server identity and epoch are cached per instance, in ms. Default 5000. */
  identityCacheMs?: number;
  /** The change stream's limits, timers and allowed origins (defaults: DEFAULT_LIVE_OPTIONS). */
  live?: Partial<LiveOptions>;
  /**
   * How long Node's HTTP server waits for a request, in ms; a late one is answered 408
   * `request_timeout` (http/client-error.ts). Defaults: Node's (headers 60 s, no whole-request limit).
   */
  httpTimeouts?: HttpTimeouts;
}

/** Node's HTTP server timers (node:http `headersTimeout`, `requestTimeout`, `connectionsCheckingInterval`), in ms. */
export interface HttpTimeouts {
  /** Most time to receive a request's headers. */
  headersMs?: number;
  /** Most time to receive a whole request (headers and body); 0: no limit. */
  requestMs?: number;
  /** How often the server checks open requests against the two limits above. */
  checkIntervalMs?: number;
}

/** Builds the server without listening. Reads no env; call once per test. */
export async function buildApp(opts: AppOptions): Promise<FastifyInstance> {
  const limits: Limits = { ...DEFAULT_LIMITS, ...opts.limits };
  const replies = new RepliesInFlight();
  // The query parameters the routes take, by name: the only ones whose values are logged.
  const queryParameters = new Set<string>();
  const app = Fastify({
    logger: loggerOptions(opts.logger ?? false, queryParameters),
    bodyLimit: limits.maxBodyBytes,
    // A path parameter is at most a namespace name with every character percent-encoded
    // (`acme%2Fweb`); the router's default of 100 would answer 414 to valid long names.
    routerOptions: { maxParamLength: MAX_NAMESPACE_LENGTH * 3 },
    // The router's own refusals (over-long parameter, bad percent-encoding) in our error format.
    frameworkErrors: frameworkErrors(MAX_NAMESPACE_LENGTH * 3),
    // Requests arriving during close are answered by plugins/shutdown.ts with our error contract.
    return503OnClosing: false,
    // A request Node's HTTP parser refuses (a control character in a header...) gets our error body too.
    clientErrorHandler: clientErrorHandler(replies),
    ...(opts.httpTimeouts?.requestMs !== undefined ? { requestTimeout: opts.httpTimeouts.requestMs } : {}),
    http: {
      ...(opts.httpTimeouts?.headersMs !== undefined ? { headersTimeout: opts.httpTimeouts.headersMs } : {}),
      ...(opts.httpTimeouts?.checkIntervalMs !== undefined ? { connectionsCheckingInterval: opts.httpTimeouts.checkIntervalMs } : {}),
    },
  }).withTypeProvider<ZodTypeProvider>();
  app.server.on("request", replies.track);
  app.addHook("onRoute", (route) => {
    const shape = (route.schema?.querystring as { shape?: Record<string, unknown> } | undefined)?.shape;
    for (const name of Object.keys(shape ?? {})) queryParameters.add(name);
  });
  app.setValidatorCompiler(wellFormedValidator()); // zod; a lone surrogate in any field is 400 invalid_utf8
  app.setSerializerCompiler(createReplySerializerCompiler()); // fast-json-stringify from the zod reply schemas
  app.decorate("db", opts.db);
  app.decorate("limits", limits);
  // Created (or a new epoch started, for a restored database) before the first request is served.
  const identity = new IdentityCache(opts.db, opts.identityCacheMs ?? 5000);
  await identity.current();
  app.decorate("serverIdentity", identity);

  await app.register(errors, { maxBodyBytes: limits.maxBodyBytes, maxOperationsPerBatch: limits.maxOperationsPerBatch });
  await app.register(wellFormed); // headers, and the request parts a route has no schema for: no lone surrogate gets past preValidation
  await app.register(metrics, { processMetrics: opts.processMetrics ?? false }); // first, so its hooks see every request
  await app.register(shutdown);
  await app.register(readiness);
  await app.register(auth, { secret: opts.jwtSecret, ...(opts.tokenCacheMs !== undefined ? { tokenCacheMs: opts.tokenCacheMs } : {}) });
  await app.register(audit, { ...DEFAULT_AUDIT_OPTIONS, ...opts.audit });
  await app.register(operationRetention, { ...DEFAULT_OPERATION_RETENTION, ...opts.operationRetention });
  await app.register(teamPolicy, opts.policyCacheMs !== undefined ? { cacheMs: opts.policyCacheMs } : {});
  await app.register(rateLimit, { max: limits.rateLimitMax, windowMs: limits.rateLimitWindowMs });
  await app.register(docs); // before the routes, so they are described
  await app.register(live, { ...DEFAULT_LIVE_OPTIONS, ...opts.live });
  await app.register(adminConsole); // the static console at /admin, a client of /v1/admin

  await app.register(serverRoutes, { prefix: "/v1/server" });
  await app.register(adminRoutes, {
    prefix: "/v1/admin",
    jwtSecret: opts.jwtSecret,
    ...(opts.auditExportBatchSize !== undefined ? { exportBatchSize: opts.auditExportBatchSize } : {}),
  });
  await app.register(namespaceRoutes, { prefix: "/v1/namespaces" });
  await app.register(teamRoutes, { prefix: "/v1/team" });
  return app;
}

declare module "fastify" {
  interface FastifyInstance {
    db: Db;
    limits: Limits;
    fingerprintKey: string;
    /** The server identity and epoch every reply carrying a cursor carries. */
    serverIdentity: IdentityCache;
  }
}
