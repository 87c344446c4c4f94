/** Read routes of a namespace: the change feed, one entry, history, versions, diffs, conflicts. */
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import {
  ChangesQuery,
  ChangesResponse,
  ConflictsQuery,
  ConflictsResponse,
  DiffQuery,
  DiffResponse,
  EntryQuery,
  EntryResponse,
  HistoryResponse,
  NamespaceParams,
  VersionQuery,
  VersionResponse,
} from "@teammem/protocol";
import { Refusal } from "../../errors/refusal.js";
import { namespaceCursor, readChanges } from "../../store/changes.js";
import { unifiedDiff } from "../../store/diff.js";
import { listConflicts, readEntry, readHistory, readVersion } from "../../store/reads.js";
import { checkPath } from "../../store/validate-content.js";
import { errorReplies, namespaceReader, serverRef } from "./context.js";

/** The NFC form of a path from a query (the rules of an existing name). @throws Refusal invalid_path (details.rule). */
export function queryPath(raw: string): string {
  const checked = checkPath(raw, "existing");
  if ("refusal" in checked) throw checked.refusal;
  return checked.path;
}

const readRoutes: FastifyPluginAsyncZod = async (app) => {
  const reader = namespaceReader(app);

  app.get(
    "/:namespace/changes",
    {
      onRequest: reader.onRequest,
      schema: {
        summary: "The latest state of each entry changed after cursor `since`, in cursor order",
        description: "Pass `nextCursor` as `since` next time; ask again at once while `hasMore`. Tombstones have content null.",
        params: NamespaceParams,
        querystring: ChangesQuery,
        response: { 200: ChangesResponse, ...errorReplies },
      },
    },
    async (request) => {
      const ns = await reader.namespace(request);
      const server = await serverRef(app);
      const page = await readChanges(app.db, ns.id, request.query.since, request.query.limit);
      if (page === "ahead") {
        throw new Refusal("stale_cursor", `cursor ${request.query.since} is above this namespace's cursor: it comes from another server or epoch; reconcile`, {
          cursor: await namespaceCursor(app.db, ns.id),
          server,
        });
      }
      return { ...page, server };
    },
  );

  app.get(
    "/:namespace/entry",
    {
      onRequest: reader.onRequest,
      schema: { summary: "The head of one entry", params: NamespaceParams, querystring: EntryQuery, response: { 200: EntryResponse, ...errorReplies } },
    },
    async (request) => {
      const ns = await reader.namespace(request);
      const path = queryPath(request.query.path);
      const entry = await readEntry(app.db, ns.id, path);
      if (!entry) throw new Refusal("not_found", "no entry at this path");
      return { ...entry, server: await serverRef(app) };
    },
  );

  app.get(
    "/:namespace/history",
    {
      onRequest: reader.onRequest,
      schema: {
        summary: "Every version of one entry (newest first) and its conflict records",
        params: NamespaceParams,
        querystring: EntryQuery,
        response: { 200: HistoryResponse, ...errorReplies },
      },
    },
    async (request) => {
      const ns = await reader.namespace(request);
      const path = queryPath(request.query.path);
      const history = await readHistory(app.db, ns.id, path);
      if (history.versions.length === 0 && history.conflicts.length === 0) throw new Refusal("not_found", "no entry at this path");
      return { path, ...history, server: await serverRef(app) };
    },
  );

  app.get(
    "/:namespace/version",
    {
      onRequest: reader.onRequest,
      schema: { summary: "One version of an entry, with its content", params: NamespaceParams, querystring: VersionQuery, response: { 200: VersionResponse, ...errorReplies } },
    },
    async (request) => {
      const ns = await reader.namespace(request);
      const version = await readVersion(app.db, ns.id, queryPath(request.query.path), request.query.version);
      if (!version) throw new Refusal("not_found", `no version ${request.query.version} at this path`);
      return { ...version, server: await serverRef(app) };
    },
  );

  app.get(
    "/:namespace/diff",
    {
      onRequest: reader.onRequest,
      schema: {
        summary: "Unified diff between two versions of an entry (version 0 and tombstones count as empty)",
        params: NamespaceParams,
        querystring: DiffQuery,
        response: { 200: DiffResponse, ...errorReplies },
      },
    },
    async (request) => {
      const ns = await reader.namespace(request);
      const path = queryPath(request.query.path);
      const { from, to } = request.query;
      const load = async (v: number): Promise<string | null> => {
        if (v === 0) return null;
        const row = await readVersion(app.db, ns.id, path, v);
        if (!row) throw new Refusal("not_found", `no version ${v} at this path`);
        return row.content;
      };
      return { path, from, to, diff: unifiedDiff(path, from, await load(from), to, await load(to)) };
    },
  );

  app.get(
    "/:namespace/conflicts",
    {
      onRequest: reader.onRequest,
      schema: {
        summary: "Conflict records of the namespace (default: open ones), oldest first",
        params: NamespaceParams,
        querystring: ConflictsQuery,
        response: { 200: ConflictsResponse, ...errorReplies },
      },
    },
    async (request) => {
      const ns = await reader.namespace(request);
      return { conflicts: await listConflicts(app.db, ns.id, request.query.status), server: await serverRef(app) };
    },
  );
};

export default readRoutes;
