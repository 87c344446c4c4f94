/**
 * /v1/admin/audit-events: the team's audit log. Filters (AuditFilter), keyset pages newest first,
 * one event, summary counts, and a streamed export (CSV or JSON Lines) that reads the log in
 * bounded batches as the client reads the response, so an export of any length runs in constant memory.
 */
import { Readable } from "node:stream";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { AuditEvent, AuditEventList, AuditEventParams, AuditEventQuery, AuditExportQuery, AuditFilter, AuditSummary } from "@teammem/protocol";
import { z } from "zod";
import { CONTENT_TYPES, exportBatch, exportHead } from "../../audit/export-format.js";
import { auditEventBatches, listAuditEvents, readAuditEvent, summarizeAuditEvents } from "../../audit/query.js";
import { Refusal } from "../../errors/refusal.js";
import { adminErrors } from "./replies.js";

export interface AuditRouteOptions {
  /** Rows per query of an export (default 1000). */
  exportBatchSize?: number;
}

const auditRoutes: FastifyPluginAsyncZod<AuditRouteOptions> = async (app, opts) => {
  const batchSize = opts.exportBatchSize ?? 1000;

  app.get(
    "/audit-events",
    {
      schema: {
        summary: "This team's audit events, newest first (metadata only), filtered; pass nextBefore as before for the next page",
        querystring: AuditEventQuery,
        response: { 200: AuditEventList, ...adminErrors },
      },
    },
    async (request) => {
      const { limit, before, ...filter } = request.query;
      return listAuditEvents(app.db, { teamId: request.auth.teamId }, filter, { limit, before });
    },
  );

  app.get(
    "/audit-events/summary",
    {
      schema: {
        summary: "Counts of this team's matching audit events by kind, rule, user, namespace and UTC day",
        querystring: AuditFilter,
        response: { 200: AuditSummary, ...adminErrors },
      },
    },
    async (request) => summarizeAuditEvents(app.db, { teamId: request.auth.teamId }, request.query),
  );

  app.get(
    "/audit-events/export",
    {
      schema: {
        summary: "Every matching audit event, oldest first, streamed as CSV or JSON Lines (format=csv|jsonl)",
        querystring: AuditExportQuery,
        produces: [CONTENT_TYPES.csv, CONTENT_TYPES.jsonl],
        response: { 200: z.string().describe("CSV (header row first) or JSON Lines, one AuditEvent per line"), ...adminErrors },
      },
    },
    async (request, reply) => {
      const { format, ...filter } = request.query;
      const scope = { teamId: request.auth.teamId };
      const log = request.log;
      async function* body(): AsyncGenerator<string> {
        const head = exportHead(format);
        if (head) yield head;
        let batch = 0;
        for await (const events of auditEventBatches(app.db, scope, filter, batchSize)) {
          log.debug({ batch: ++batch, rows: events.length }, "audit export batch");
          yield exportBatch(format, events);
        }
      }
      const stamp = new Date().toISOString().replace(/[:.]/g, "-");
      return reply
        .type(CONTENT_TYPES[format])
        .header("content-disposition", `attachment; filename="audit-events-${stamp}.${format === "csv" ? "csv" : "jsonl"}"`)
        .header("cache-control", "no-store")
        // A stream is sent as is (no serializer); the 200 schema above only describes it for OpenAPI.
        .send(Readable.from(body(), { objectMode: false }) as never);
    },
  );

  app.get(
    "/audit-events/:id",
    { schema: { summary: "One audit event of this team", params: AuditEventParams, response: { 200: AuditEvent, ...adminErrors } } },
    async (request) => {
      const event = await readAuditEvent(app.db, { teamId: request.auth.teamId }, request.params.id);
      if (!event) throw new Refusal("not_found", "no such audit event in this team");
      return event;
    },
  );
};

export default auditRoutes;
