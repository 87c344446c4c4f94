/**
 * /v1/team: what every member of the caller's team needs to know of the team itself (any role).
 */
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { ErrorBody, ScanPolicyResponse } from "@teammem/protocol";

const errors = { 401: ErrorBody, 403: ErrorBody, 429: ErrorBody };

const teamRoutes: FastifyPluginAsyncZod = async (app) => {
  app.addHook("onRequest", app.authenticate);
  app.addHook("onRequest", app.requireRole("reader"));

  app.get(
    "/scan-policy",
    {
      schema: {
        summary: "The team's scan policy: the current fingerprint key (id and key) the team's clients scan with",
        description: "Fetch at init and at every sync: after an admin rotates the key, block reports made with the old one are refused (409 fingerprint_key_stale).",
        response: { 200: ScanPolicyResponse, ...errors },
      },
    },
    async (request) => ({ fingerprintKey: await app.teamPolicy.fingerprintKey(request.auth.teamId) }),
  );
};

export default teamRoutes;
