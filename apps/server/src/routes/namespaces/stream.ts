/**
 * GET /v1/namespaces/:namespace/stream: the namespace's change stream over a WebSocket (protocol in
 * packages/protocol `messages/stream.ts` and its README). Registered inside the namespace routes,
 * so the auth hook, the secret-name check and the rate limiter run before the upgrade: every
 * refusal (token, role, namespace, origin) is an HTTP error reply and no frame is exchanged.
 */
import { ErrorBody, NamespaceParams, StreamClientMessage } from "@teammem/protocol";
import type { FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { Refusal } from "../../errors/refusal.js";
import { StreamConnection } from "../../live/stream-connection.js";
import { errorReplies, requireNamespace, type NamespaceRef } from "./context.js";

const streamRoutes: FastifyPluginAsyncZod = async (app) => {
  const hub = app.changeHub;
  const allowed = new Set(hub.options.allowedOrigins);
  /** The namespace each upgrading request resolved to (set before the upgrade). */
  const resolved = new WeakMap<FastifyRequest, NamespaceRef>();

  /** A browser page of a foreign site must not open a stream with a token it got hold of. */
  const refuseForeignOrigin = async (request: FastifyRequest) => {
    const origin = request.headers.origin;
    if (allowed.size > 0 && origin !== undefined && !allowed.has(origin)) {
      throw new Refusal("forbidden", "this Origin may not open a change stream");
    }
  };

  app.route({
    method: "GET",
    url: "/:namespace/stream",
    onRequest: [refuseForeignOrigin, app.requireRole("reader")],
    preHandler: async (request) => {
      resolved.set(request, await requireNamespace(app, request, (request.params as NamespaceParams).namespace));
    },
    schema: {
      summary: "The namespace's change stream (WebSocket; see the protocol README)",
      params: NamespaceParams,
      response: { ...errorReplies, 426: ErrorBody },
    },
    handler: async (_request, reply) =>
      reply
        .status(426)
        .header("upgrade", "websocket")
        .send({ code: "upgrade_required", message: "this route is a WebSocket: send the upgrade headers (Connection: Upgrade, Upgrade: websocket)" }),
    wsHandler: (socket, request) => {
      const ns = resolved.get(request)!;
      const conn = new StreamConnection(socket, request.auth, { id: ns.id, name: ns.name }, hub.options, (c) => hub.remove(c));
      // Listeners before any await, so no message is missed.
      socket.on("message", (data, isBinary) => {
        if (!conn.open) return;
        if (isBinary) {
          conn.close("invalid_request", "messages are JSON text frames");
          return;
        }
        let json: unknown;
        try {
          json = JSON.parse(String(data));
        } catch {
          conn.close("invalid_request", "a message is not valid JSON");
          return;
        }
        const parsed = StreamClientMessage.safeParse(json);
        if (!parsed.success) {
          const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "message"}: ${i.message}`).join("; ");
          conn.close("invalid_request", `invalid message: ${issues}`.slice(0, 500));
          return;
        }
        if (conn.state !== "awaiting_subscribe") {
          conn.close("invalid_request", "subscribe was already sent on this connection");
          return;
        }
        void hub.subscribe(conn, parsed.data);
      });
      hub.add(conn);
    },
  });
};

export default streamRoutes;
