/**
 * POST /v1/admin/namespaces/:namespace/purge: remove content that should never have been stored
 * (store/purge.ts). The backend of `teammem-server purge` and of the console's purge button.
 */
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { ErrorBody, NamespaceParams, PurgeRequest, PurgeResponse } from "@teammem/protocol";
import { Refusal } from "../../errors/refusal.js";
import { findNamespace } from "../../store/namespaces.js";
import { purgeVersion } from "../../store/purge.js";
import { checkPath } from "../../store/validate-content.js";
import { writeContext } from "../namespaces/context.js";
import { adminErrors } from "./replies.js";

const purgeRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    "/namespaces/:namespace/purge",
    {
      schema: {
        summary: "Purge a version's content (sameContent: every version of the entry holding it) from history, head, conflict records and stored results; a purged head becomes a tombstone",
        params: NamespaceParams,
        body: PurgeRequest,
        response: { 200: PurgeResponse, ...adminErrors, 422: ErrorBody },
      },
    },
    async (request) => {
      const ns = await findNamespace(app.db, request.auth.teamId, request.params.namespace);
      if (!ns) throw new Refusal("not_found", "no namespace of this name in this team");
      const checked = checkPath(request.body.path, "existing");
      if ("refusal" in checked) throw checked.refusal;
      const ctx = await writeContext(app, request, ns, undefined);
      return purgeVersion(app.db, ctx, { ...request.body, path: checked.path });
    },
  );
};

export default purgeRoutes;
