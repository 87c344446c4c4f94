/** Read routes of a namespace for a client's reconciliation: heads by path, versions by content hash, many entries at once. */
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { FindVersionsRequest, FindVersionsResponse, HeadsQuery, HeadsResponse, NamespaceParams, ReadEntriesRequest, ReadEntriesResponse } from "@teammem/protocol";
import { readEntries } from "../../store/reads.js";
import { findVersions, listHeads } from "../../store/reconcile-reads.js";
import { errorReplies, namespaceReader, serverRef } from "./context.js";
import { queryPath } from "./reads.js";

const reconcileRoutes: FastifyPluginAsyncZod = async (app) => {
  const reader = namespaceReader(app);

  app.get(
    "/:namespace/heads",
    {
      onRequest: reader.onRequest,
      schema: {
        summary: "Every entry's head (tombstones included), metadata only, in path order",
        description: "Pass `nextAfter` as `after` for the next page. `cursor` is the namespace's cursor when the page was read.",
        params: NamespaceParams,
        querystring: HeadsQuery,
        response: { 200: HeadsResponse, ...errorReplies },
      },
    },
    async (request) => {
      const ns = await reader.namespace(request);
      const server = await serverRef(app);
      const after = request.query.after === undefined ? undefined : queryPath(request.query.after);
      return { ...(await listHeads(app.db, ns.id, after, request.query.limit)), server };
    },
  );

  app.post(
    "/:namespace/versions/find",
    {
      onRequest: reader.onRequest,
      schema: {
        summary: "Per path, the newest version whose content sha256 starts with one of the given 16-hex-digit prefixes",
        description: "A reconciling client finds the newest common ancestor of its file with it. Paths without a match are left out.",
        params: NamespaceParams,
        body: FindVersionsRequest,
        response: { 200: FindVersionsResponse, ...errorReplies },
      },
    },
    async (request) => {
      const ns = await reader.namespace(request);
      const server = await serverRef(app);
      const queries = request.body.paths.map((q) => ({ path: queryPath(q.path), candidates: q.candidates }));
      return { found: await findVersions(app.db, ns.id, queries), server };
    },
  );

  app.post(
    "/:namespace/entries/read",
    {
      onRequest: reader.onRequest,
      schema: {
        summary: "The heads of up to 200 paths, with their content, in one request",
        description:
          "What GET entry answers for each path, without `server` per entry; paths without an entry are left out. " +
          "A client applying many heads (a reconciliation) reads them in pages of 200 instead of one request per file.",
        params: NamespaceParams,
        body: ReadEntriesRequest,
        response: { 200: ReadEntriesResponse, ...errorReplies },
      },
    },
    async (request) => {
      const ns = await reader.namespace(request);
      const server = await serverRef(app);
      const paths = request.body.paths.map(queryPath);
      return { entries: await readEntries(app.db, ns.id, paths), server };
    },
  );
};

export default reconcileRoutes;
