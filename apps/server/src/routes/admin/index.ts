/**
 * Team administration at /v1/admin: every route needs a token with the `admin` role and acts on
 * the token's own team only (another team's objects are `not_found`). Bodies: packages/protocol
 * (messages/admin.ts, audit.ts, bypasses.ts). Every change is an audit event whose actor is the
 * token's user.
 */
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { NoBody, RotateFingerprintKeyResponse } from "@teammem/protocol";
import { actorOf } from "../../auth/actor.js";
import { rotateFingerprintKey } from "../../policy/fingerprint-keys.js";
import auditRoutes, { type AuditRouteOptions } from "./audit.js";
import bypassRoutes from "./bypasses.js";
import purgeRoutes from "./purge.js";
import memberRoutes from "./members.js";
import { adminErrors } from "./replies.js";
import tokenRoutes from "./tokens.js";

export interface AdminRouteOptions extends AuditRouteOptions {
  /** Signs issued tokens. */
  jwtSecret: string;
}

const adminRoutes: FastifyPluginAsyncZod<AdminRouteOptions> = async (app, opts) => {
  app.addHook("onRequest", app.authenticate);
  app.addHook("onRequest", app.requireRole("admin"));

  await app.register(tokenRoutes, { jwtSecret: opts.jwtSecret });
  await app.register(memberRoutes);
  await app.register(bypassRoutes);
  await app.register(purgeRoutes);
  await app.register(auditRoutes, opts.exportBatchSize !== undefined ? { exportBatchSize: opts.exportBatchSize } : {});

  app.post(
    "/fingerprint-key/rotate",
    {
      schema: {
        summary: "Rotate the team's fingerprint key: new fingerprints for every secret; approved bypasses of the old key stop applying",
        body: NoBody,
        response: { 200: RotateFingerprintKeyResponse, ...adminErrors },
      },
    },
    async (request) => {
      const key = await rotateFingerprintKey(app.db, request.auth.teamId, actorOf(request)); // with its audit event
      app.teamPolicy.invalidate(request.auth.teamId);
      return { fingerprintKeyId: key.id };
    },
  );
};

export default adminRoutes;
