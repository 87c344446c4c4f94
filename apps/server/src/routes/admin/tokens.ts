/** /v1/admin/tokens: issue, list and revoke the team's tokens (values are shown once, never stored). */
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { ErrorBody, IssueTokenRequest, NoBody, IssueTokenResponse, RevokeTokenResponse, TokenList } from "@teammem/protocol";
import { revokeTokenGuarded } from "../../admin/revoke-guard.js";
import { issueAuditedToken, listTokens } from "../../admin/tokens.js";
import { Refusal } from "../../errors/refusal.js";
import { actorOf } from "../../auth/actor.js";
import { adminErrors, iso } from "./replies.js";

const DAY_SECONDS = 86_400;

const tokenRoutes: FastifyPluginAsyncZod<{ jwtSecret: string }> = async (app, opts) => {
  app.post(
    "/tokens",
    { schema: { summary: "Issue a token for a user of this team", body: IssueTokenRequest, response: { 201: IssueTokenResponse, ...adminErrors } } },
    async (request, reply) => {
      const { user, role, expiresInDays } = request.body;
      const { token, tokenId } = await issueAuditedToken(
        app.db,
        opts.jwtSecret,
        { teamName: request.auth.teamName, userName: user, role, ...(expiresInDays ? { expiresInSeconds: expiresInDays * DAY_SECONDS } : {}) },
        actorOf(request),
      );
      return reply.status(201).send({ token, tokenId });
    },
  );

  app.get(
    "/tokens",
    { schema: { summary: "List this team's tokens (never their values)", response: { 200: TokenList, ...adminErrors } } },
    async (request) => {
      const rows = await listTokens(app.db, request.auth.teamId);
      return {
        tokens: rows.map((t) => ({ ...t, createdAt: t.createdAt.toISOString(), expiresAt: iso(t.expiresAt), revokedAt: iso(t.revokedAt) })),
      };
    },
  );

  app.delete(
    "/tokens/:tokenId",
    {
      schema: {
        summary: "Revoke a token of this team; the team's last valid admin token only with ?force=true (else 409 last_admin_token)",
        params: z.strictObject({ tokenId: z.uuid() }),
        querystring: z.strictObject({ force: z.enum(["true", "false"]).optional() }),
        body: NoBody,
        response: { 200: RevokeTokenResponse, ...adminErrors, 409: ErrorBody },
      },
    },
    async (request) => {
      const { tokenId } = request.params;
      const revoked = await revokeTokenGuarded(app.db, tokenId, request.auth.teamId, request.query.force === "true", actorOf(request)); // with its audit event
      if (!revoked) throw new Refusal("not_found", "no such token in this team");
      app.tokenCache.invalidate(tokenId);
      return { tokenId, revokedAt: revoked.revokedAt.toISOString() };
    },
  );
};

export default tokenRoutes;
