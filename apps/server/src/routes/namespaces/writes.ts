/** Write routes of a namespace: the batch endpoint (merging), compare-and-set, restore, conflict resolution. */
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { BatchRequest, BatchResponse, ErrorBody, NamespaceParams, type OperationResult } from "@teammem/protocol";
import { ApiError } from "../../errors.js";
import { applyOperation } from "../../store/apply-operation.js";
import { ensureCallerNamespace, errorReplies, writeContext } from "./context.js";

const writeRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    "/:namespace/batch",
    {
      onRequest: [app.requireRole("member")],
      schema: {
        summary: "Apply write operations, each atomically on its own; one result per operation, in order",
        description:
          "Creates the namespace on first use. Each operation is idempotent by opId: a replay returns the stored result. " +
          "Results: applied (fast-forward), merged (three-way merge; content returned), conflict (head kept, incoming kept as a conflict record), rejected (stable code).",
        params: NamespaceParams,
        body: BatchRequest,
        response: { 200: BatchResponse, ...errorReplies, 413: ErrorBody },
      },
    },
    async (request) => {
      const { operations, clientId } = request.body;
      const limit = app.limits.maxOperationsPerBatch;
      if (operations.length > limit) {
        throw new ApiError("batch_too_large", `a batch may hold at most ${limit} operations, this one has ${operations.length}`, {
          limit,
          value: operations.length,
        });
      }
      const ns = await ensureCallerNamespace(app, request, request.params.namespace);
      const ctx = writeContext(app, request, ns, clientId);
      const results: OperationResult[] = [];
      for (const op of operations) {
        try {
          results.push(await applyOperation(app.db, ctx, op));
        } catch (err) {
          // One failing operation must not hide the results of the others; this one is not stored, so a retry re-runs it.
          request.log.error({ err: { message: (err as Error).message, stack: (err as Error).stack }, opId: op.opId }, "operation failed");
          results.push({ opId: op.opId, path: op.path, status: "rejected", code: "internal_error", message: "internal error; retry the operation" });
        }
      }
      return { results };
    },
  );
};

export default writeRoutes;
