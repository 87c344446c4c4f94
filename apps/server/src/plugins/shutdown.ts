import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { Refusal } from "../errors/refusal.js";

/** How long a client refused during a shutdown is told to wait, in ms (a restart or another instance). */
const RETRY_AFTER_MS = 2000;
const PROBES = new Set(["/healthz", "/readyz"]);

/**
 * Graceful close: from the moment `app.close()` begins (a SIGTERM in the CLI), a request arriving
 * on a connection that is still open is answered 503 `server_shutting_down` with Retry-After and
 * `Connection: close`, while requests already running finish (Fastify waits for them before its
 * `onClose` hooks close anything they use), each answered with `Connection: close` so no kept-alive
 * connection outlives its request. Decorates `app.closing` (true once closing began).
 */
async function shutdown(app: FastifyInstance): Promise<void> {
  let closing = false;
  app.decorate("closing", {
    getter: () => closing,
  });
  app.addHook("preClose", async () => {
    closing = true;
  });
  // A reply sent once closing began (a request that was in flight) closes its connection: a
  // keep-alive client would otherwise hold it open, and the server's close would wait for it until
  // the shutdown timeout (exit 1, "requests still running") though every request was answered.
  app.addHook("onSend", async (_request, reply) => {
    if (closing) reply.header("connection", "close");
  });
  app.addHook("onRequest", async (request, reply) => {
    // Probes keep answering (readiness says "shutting down", so a load balancer drains this instance).
    if (!closing || PROBES.has(request.url.split("?")[0]!)) return;
    reply.header("connection", "close");
    throw new Refusal("server_shutting_down", "the server is shutting down; retry shortly (another instance or the restarted one answers)", {
      retryAfterMs: RETRY_AFTER_MS,
    });
  });
}

declare module "fastify" {
  interface FastifyInstance {
    /** True from the moment `close()` began. */
    readonly closing: boolean;
  }
}

export default fp(shutdown, { name: "teammem-shutdown", dependencies: ["teammem-errors"] });
