/**
 * The change stream's shared machinery on the app: @fastify/websocket (ws) with the stream's
 * limits, `app.changeHub` (LISTEN connection, channels, connections; see live/change-hub.ts),
 * `app.changeNotifier` (the NOTIFY of this instance's commits, sent after them; store/change-notifier.ts),
 * the `listen` check of `GET /readyz` (plugins/readiness.ts), and a graceful shutdown that closes every stream
 * with 1001 before the server stops. The route itself is routes/namespaces/stream.ts, under the
 * namespace routes' auth hook.
 */
import websocket from "@fastify/websocket";
import { STREAM_SUBPROTOCOL } from "@teammem/protocol";
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { ChangeHub, type LiveOptions } from "../live/change-hub.js";
import { ChangeNotifier } from "../store/change-notifier.js";
import { pgPool } from "../store/namespace-transaction.js";

async function live(app: FastifyInstance, opts: LiveOptions): Promise<void> {
  const hub = new ChangeHub(app.db, app.serverIdentity, opts, app.log);
  app.decorate("changeHub", hub);
  const notifier = new ChangeNotifier(pgPool(app.db), app.log);
  app.decorate("changeNotifier", notifier);

  await app.register(websocket, {
    options: {
      maxPayload: opts.maxMessageBytes,
      // Select the stream's own subprotocol; `teammem.bearer.<token>` only carries the token.
      handleProtocols: (protocols) => (protocols.has(STREAM_SUBPROTOCOL) ? STREAM_SUBPROTOCOL : false),
      perMessageDeflate: false,
    },
    preClose: async () => {
      await hub.shutdown();
      app.websocketServer.close();
    },
    errorHandler: (error, socket, request) => {
      // ws has already started closing (1009 too big, 1007 bad UTF-8, 1002 protocol error): let
      // the close handshake finish; drop the socket only if it never does.
      request.log.info({ err: { message: error.message, code: (error as { code?: string }).code } }, "change stream: socket error");
      if (socket.readyState === socket.OPEN) socket.close(1011, "internal_error");
      const timer = setTimeout(() => socket.terminate(), opts.closeGraceMs);
      timer.unref();
      socket.once("close", () => clearTimeout(timer));
    },
  });

  // /readyz (plugins/readiness.ts) fails while this instance's LISTEN connection is down.
  app.readiness.add("listen", async () => {
    const { state, since, reconnects } = hub.listener.status();
    if (state !== "listening") throw new Error(`LISTEN connection ${state} (listening since ${since ?? "never"}, ${reconnects} reconnects)`);
  });

  await hub.start();
  app.addHook("onClose", async () => {
    await notifier.close(); // before the caller closes the pool: what committed is still announced
    await hub.close();
  });
}

declare module "fastify" {
  interface FastifyInstance {
    /** This instance's change stream hub. */
    changeHub: ChangeHub;
    /** Notifies the cursors this instance's writes commit, after their commit. */
    changeNotifier: ChangeNotifier;
  }
}

export default fp(live, { name: "teammem-live", dependencies: ["teammem-auth", "teammem-readiness"] });
