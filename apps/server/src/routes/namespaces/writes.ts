/** Write routes of a namespace: the batch endpoint (merging), compare-and-set, restore, conflict resolution. */
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import {
  AppliedWriteResponse,
  BatchRequest,
  BatchResponse,
  ConflictParams,
  EntryQuery,
  ErrorBody,
  NamespaceParams,
  PutEntryRequest,
  ResolveConflictRequest,
  RestoreRequest,
  WriteResponse,
  type OperationResult,
} from "@teammem/protocol";
import { databaseError, refusalForDatabaseError, refusalForUnstorableText } from "../../errors/database-errors.js";
import { Refusal } from "../../errors/refusal.js";
import { wellFormedValidator } from "../../http/validator.js";
import { applyRun, type RunChecks } from "../../store/apply-batch.js";
import { applyOperation } from "../../store/apply-operation.js";
import { touchDevice } from "../../store/devices.js";
import { putEntry, resolveConflict, restoreVersion } from "../../store/direct-writes.js";
import { ensureCallerNamespace, errorReplies, requireNamespace, serverRef, writeContext } from "./context.js";

const writeErrors = { ...errorReplies, 409: ErrorBody, 413: ErrorBody, 422: ErrorBody };

/**
 * 413 `batch_too_large` (details `{ limit, value }`) when the body's `operations` is an array of more
 * than `limit` items; anything else is left to the schema.
 */
function refuseOversizedBatch(body: unknown, limit: number): void {
  const operations = (body as { operations?: unknown } | null | undefined)?.operations;
  if (Array.isArray(operations) && operations.length > limit) {
    throw new Refusal("batch_too_large", `a batch may hold at most ${limit} operations, this one has ${operations.length}`, { limit, value: operations.length });
  }
}

const writeRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    "/:namespace/batch",
    {
      onRequest: [app.requireRole("member")],
      // The count before the schema: the schema checks every operation before any count (100 000
      // invalid operations in 1.5 MB held the event loop 45 s, try16 F14).
      preValidation: async (request) => refuseOversizedBatch(request.body, app.limits.maxOperationsPerBatch),
      // An operation holding a lone surrogate is rejected alone (invalid_utf8), not its batch.
      validatorCompiler: wellFormedValidator("operations"),
      schema: {
        summary: "Apply write operations, each atomically on its own; one result per operation, in order",
        description:
          "Creates the namespace on first use. Each operation is idempotent by opId: a replay returns the stored result. " +
          "Results: applied (fast-forward), merged (three-way merge; content returned), conflict (head kept, incoming kept as a conflict record), rejected (stable code).",
        params: NamespaceParams,
        body: BatchRequest,
        response: { 200: BatchResponse, ...errorReplies, 409: ErrorBody, 413: ErrorBody },
      },
    },
    async (request) => {
      const { operations, clientId, server: expected } = request.body;
      const server = await serverRef(app);
      if (expected && (expected.id !== server.id || expected.epoch !== server.epoch)) {
        throw new Refusal("stale_cursor", "the batch's base versions come from another server or epoch; reconcile, then send again", { server });
      }
      const ns = await ensureCallerNamespace(app, request, request.params.namespace);
      const ctx = await writeContext(app, request, ns, clientId);
      if (clientId) await touchDevice(app.db, request.auth.principalId, clientId, app.deviceSightings);
      const results: OperationResult[] = [];
      // Runs of operations share one transaction (store/apply-batch.ts); what a run cannot take is
      // applied on its own. A run that fails for another reason than a transient database failure
      // is rolled back whole, and the rest of the batch goes one operation per transaction.
      let setBased = true;
      const checks: RunChecks = new Map();
      for (let i = 0; i < operations.length; ) {
        if (setBased && operations.length - i >= 2) {
          try {
            const done = await applyRun(app.db, ctx, operations.slice(i), checks);
            if (done.length > 0) {
              results.push(...done);
              i += done.length;
              continue;
            }
          } catch (err) {
            const busy = refusalForDatabaseError(err);
            if (busy) {
              request.log.warn({ err: { message: databaseError(err)?.message ?? (err as Error).message } }, busy.code === "storage_full" ? "database disk full" : "database busy or unreachable");
              throw busy;
            }
            request.log.warn({ err: { message: (err as Error).message } }, "set-based batch run failed; applying its operations one by one");
            setBased = false;
          }
        }
        const op = operations[i++]!;
        try {
          results.push(await applyOperation(app.db, ctx, op));
        } catch (err) {
          // A transient database failure ends the batch with 503 and Retry-After: the operations
          // before it are stored (each atomically) and a resent batch replays them by opId.
          const busy = refusalForDatabaseError(err);
          if (busy) {
            request.log.warn({ err: { message: databaseError(err)?.message ?? (err as Error).message }, opId: op.opId }, busy.code === "storage_full" ? "database disk full" : "database busy or unreachable");
            throw busy;
          }
          const unstorable = refusalForUnstorableText(err);
          if (unstorable) {
            results.push({ opId: op.opId, path: op.path, status: "rejected", ...unstorable.toBody() });
            continue;
          }
          // One failing operation must not hide the results of the others; this one is not stored, so a retry re-runs it.
          request.log.error({ err: { message: (err as Error).message, stack: (err as Error).stack }, opId: op.opId }, "operation failed");
          results.push({ opId: op.opId, path: op.path, status: "rejected", code: "internal_error", message: "internal error; retry the operation" });
        }
      }
      for (const r of results) app.metrics.operation(r.status, r.status === "rejected" ? r.code : undefined);
      return { results, server };
    },
  );

  app.put(
    "/:namespace/entry",
    {
      onRequest: [app.requireRole("member")],
      schema: {
        summary: "Compare-and-set one entry (no merging): 409 version_conflict with details.currentVersion when baseVersion is stale",
        params: NamespaceParams,
        querystring: EntryQuery,
        body: PutEntryRequest,
        response: { 200: WriteResponse, ...writeErrors },
      },
    },
    async (request) => {
      const ns = await ensureCallerNamespace(app, request, request.params.namespace);
      const body = request.body;
      const content = "delete" in body ? null : body.content;
      const written = await putEntry(app.db, await writeContext(app, request, ns, undefined), request.query.path, body.baseVersion, content);
      return { ...written, server: await serverRef(app) };
    },
  );

  app.post(
    "/:namespace/restore",
    {
      onRequest: [app.requireRole("member")],
      schema: {
        summary: "Restore an old version of an entry as a new version (also brings back a deleted entry); idempotent by opId",
        params: NamespaceParams,
        body: RestoreRequest,
        response: { 200: AppliedWriteResponse, ...writeErrors },
      },
    },
    async (request) => {
      const ns = await requireNamespace(app, request, request.params.namespace);
      const { opId, path, version, clientId } = request.body;
      const restored = await restoreVersion(app.db, await writeContext(app, request, ns, clientId), opId, path, version);
      return { ...restored, server: await serverRef(app) };
    },
  );

  app.post(
    "/:namespace/conflicts/:id/resolve",
    {
      onRequest: [app.requireRole("member")],
      schema: {
        summary: "Resolve a conflict record by writing the resolution (content or delete) as a new version; idempotent by opId",
        params: ConflictParams,
        body: ResolveConflictRequest,
        response: { 200: AppliedWriteResponse, ...writeErrors },
      },
    },
    async (request) => {
      const ns = await requireNamespace(app, request, request.params.namespace);
      const body = request.body;
      const content = "delete" in body ? null : body.content;
      const ctx = await writeContext(app, request, ns, body.clientId);
      const resolved = await resolveConflict(app.db, ctx, request.params.id, body.opId, body.baseVersion, content);
      return { ...resolved, server: await serverRef(app) };
    },
  );
};

export default writeRoutes;
