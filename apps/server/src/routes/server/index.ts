/** /v1/server: who the server is (identity, epoch) and its limits, for any valid token. */
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { ServerInfoResponse } from "@teammem/protocol";
import { errorReplies } from "../namespaces/context.js";

const serverRoutes: FastifyPluginAsyncZod = async (app) => {
  app.addHook("onRequest", app.authenticate);

  app.get(
    "/",
    {
      onRequest: [app.requireRole("reader")],
      schema: {
        summary: "The server's identity, epoch and limits",
        description:
          "A client keeps `server` (identity and epoch) with its cursor and reconciles by content hashes when it changes; " +
          "it splits batches and refuses over-size files locally by `limits`.",
        response: { 200: ServerInfoResponse, ...errorReplies },
      },
    },
    async () => {
      const { server, epochStartedAt, epochReason } = await app.serverIdentity.current();
      const { maxEntryBytes, maxBodyBytes, maxEntriesPerNamespace, maxOperationsPerBatch } = app.limits;
      return { server, epochStartedAt, epochReason, limits: { maxEntryBytes, maxBodyBytes, maxEntriesPerNamespace, maxOperationsPerBatch } };
    },
  );
};

export default serverRoutes;
