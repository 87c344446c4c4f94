/**
 * /v1/team: what every member of the caller's team needs to know of the team itself (any role),
 * and the caller's own bypass requests (making one needs the member role).
 */
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { ErrorBody, ScanPolicyResponse, WhoamiResponse } from "@teammem/protocol";
import { SERVER_VERSION } from "../../version.js";
import bypassRequestRoutes from "./bypasses.js";

const errors = { 401: ErrorBody, 403: ErrorBody, 429: ErrorBody };

const teamRoutes: FastifyPluginAsyncZod = async (app) => {
  app.addHook("onRequest", app.authenticate);
  app.addHook("onRequest", app.requireRole("reader"));

  app.get(
    "/scan-policy",
    {
      schema: {
        summary: "The team's scan policy: the current fingerprint key (id and key) the team's clients scan with, and the fingerprints its approved bypasses allow",
        description: "Fetch at init and at every sync: after an admin rotates the key, block reports made with the old one are refused (409 fingerprint_key_stale).",
        response: { 200: ScanPolicyResponse, ...errors },
      },
    },
    async (request) => {
      const policy = await app.teamPolicy.scanPolicy(request.auth.teamId);
      return { fingerprintKey: policy.key, allowedFingerprints: [...policy.allowedFingerprints] };
    },
  );

  await app.register(bypassRequestRoutes);

  app.get(
    "/whoami",
    {
      schema: {
        summary: "Who the bearer token speaks for (team, user, role, expiry) and the server's version",
        description: "For clients checking their setup (teammem doctor). Never returns the token itself.",
        response: { 200: WhoamiResponse, ...errors },
      },
    },
    async (request) => ({
      team: request.auth.teamName,
      user: request.auth.principalName,
      role: request.auth.role,
      tokenId: request.auth.tokenId,
      expiresAt: request.auth.expiresAtMs === null ? null : new Date(request.auth.expiresAtMs).toISOString(),
      serverVersion: SERVER_VERSION,
    }),
  );
};

export default teamRoutes;
