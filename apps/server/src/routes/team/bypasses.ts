/**
 * /v1/team/bypasses (member role): a member asks that a held-back secret be let through for the team (by its
 * fingerprint, never its value) and follows the caller's own requests. Admins decide at
 * /v1/admin/bypasses.
 */
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { BypassList, BypassListQuery, BypassParams, BypassRequest, BypassResponse, ErrorBody } from "@teammem/protocol";
import { actorOf } from "../../auth/actor.js";
import { bypassToWire, listBypasses, readBypass, requestBypass } from "../../bypasses/store.js";
import { Refusal } from "../../errors/refusal.js";

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody };

const bypassRequestRoutes: FastifyPluginAsyncZod = async (app) => {
  // Readers cannot write, so they have nothing to bypass.
  app.addHook("onRequest", app.requireRole("member"));

  app.post(
    "/bypasses",
    {
      schema: {
        summary: "Ask that the secret with this fingerprint be let through for the team (rule, path, line, reason; never the value)",
        description:
          "The team's policy approves it at once (immediate) or leaves it pending for an admin (approval). 201 with the new request; 200 with the team's pending or approved request for the same fingerprint.",
        body: BypassRequest,
        response: { 200: BypassResponse, 201: BypassResponse, ...errors, 409: ErrorBody, 422: ErrorBody },
      },
    },
    async (request, reply) => {
      const { key } = await app.teamPolicy.scanPolicy(request.auth.teamId);
      const actor = actorOf(request);
      const { row, created } = await requestBypass(app.db, {
        teamId: request.auth.teamId,
        actor: { id: actor.id!, name: actor.name },
        request: request.body,
        currentKeyId: key.id,
      });
      if (created && row.status === "approved") app.teamPolicy.invalidate(request.auth.teamId);
      return reply.status(created ? 201 : 200).send({ bypass: bypassToWire(row, key.id) });
    },
  );

  app.get(
    "/bypasses",
    {
      schema: {
        summary: "The caller's own bypass requests and their state, newest first",
        querystring: BypassListQuery,
        response: { 200: BypassList, ...errors },
      },
    },
    async (request) => {
      const { key } = await app.teamPolicy.scanPolicy(request.auth.teamId);
      const { rows, nextBefore } = await listBypasses(app.db, request.auth.teamId, { ...request.query, requestedById: request.auth.principalId });
      return { bypasses: rows.map((r) => bypassToWire(r, key.id)), nextBefore };
    },
  );

  app.get(
    "/bypasses/:id",
    { schema: { summary: "One of the caller's bypass requests", params: BypassParams, response: { 200: BypassResponse, ...errors } } },
    async (request) => {
      const row = await readBypass(app.db, request.auth.teamId, request.params.id, request.auth.principalId);
      if (!row) throw new Refusal("not_found", "no such bypass request of yours");
      const { key } = await app.teamPolicy.scanPolicy(request.auth.teamId);
      return { bypass: bypassToWire(row, key.id) };
    },
  );
};

export default bypassRequestRoutes;
