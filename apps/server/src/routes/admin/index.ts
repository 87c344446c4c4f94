import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import {
  AuditEventList,
  AuditEventQuery,
  ErrorBody,
  IssueTokenRequest,
  IssueTokenResponse,
  MemberList,
  RevokeTokenResponse,
  RotateFingerprintKeyResponse,
  TokenList,
} from "@teammem/protocol";
import { listAuditEvents, recordAdminEvent } from "../../admin/audit.js";
import { listMembers } from "../../admin/teams.js";
import { issueToken, listTokens } from "../../admin/tokens.js";
import { revokeTokenGuarded } from "../../admin/revoke-guard.js";
import { rotateFingerprintKey } from "../../policy/fingerprint-keys.js";
import { Refusal } from "../../errors/refusal.js";

const DAY_SECONDS = 86_400;
const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody };
const iso = (d: Date | null) => (d ? d.toISOString() : null);

/**
 * Team administration at /v1/admin: every route needs a token with the `admin` role and acts on
 * the token's own team only (another team's objects are `not_found`). Bodies: packages/protocol
 * messages/admin.ts. Options: `jwtSecret` signs issued tokens. Issuing and revoking record `token_issued` / `token_revoked` audit events.
 */
const adminRoutes: FastifyPluginAsyncZod<{ jwtSecret: string }> = async (app, opts) => {
  app.addHook("onRequest", app.authenticate);
  app.addHook("onRequest", app.requireRole("admin"));

  app.post(
    "/tokens",
    { schema: { summary: "Issue a token for a user of this team", body: IssueTokenRequest, response: { 201: IssueTokenResponse, ...errors } } },
    async (request, reply) => {
      const { user, role, expiresInDays } = request.body;
      const issued = await issueToken(app.db, opts.jwtSecret, {
        teamName: request.auth.teamName,
        userName: user,
        role,
        ...(expiresInDays ? { expiresInSeconds: expiresInDays * DAY_SECONDS } : {}),
      });
      await recordAdminEvent(app.db, {
        teamId: request.auth.teamId,
        kind: "token_issued",
        tokenId: issued.tokenId,
        actorId: request.auth.principalId,
        actorName: request.auth.principalName,
      });
      return reply.status(201).send(issued);
    },
  );

  app.get(
    "/tokens",
    { schema: { summary: "List this team's tokens (never their values)", response: { 200: TokenList, ...errors } } },
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
        response: { 200: RevokeTokenResponse, ...errors, 409: ErrorBody },
      },
    },
    async (request) => {
      const { tokenId } = request.params;
      const revoked = await revokeTokenGuarded(app.db, tokenId, request.auth.teamId, request.query.force === "true");
      if (!revoked) throw new Refusal("not_found", "no such token in this team");
      app.tokenCache.invalidate(tokenId);
      await recordAdminEvent(app.db, {
        teamId: request.auth.teamId,
        kind: "token_revoked",
        tokenId,
        actorId: request.auth.principalId,
        actorName: request.auth.principalName,
      });
      return { tokenId, revokedAt: revoked.revokedAt.toISOString() };
    },
  );

  app.get(
    "/members",
    { schema: { summary: "List this team's members and roles", response: { 200: MemberList, ...errors } } },
    async (request) => {
      const rows = await listMembers(app.db, request.auth.teamId);
      return { members: rows.map((m) => ({ ...m, joinedAt: m.joinedAt.toISOString() })) };
    },
  );

  app.post(
    "/fingerprint-key/rotate",
    {
      schema: {
        summary: "Rotate the team's fingerprint key: new fingerprints for every secret; approved bypasses of the old key stop applying",
        response: { 200: RotateFingerprintKeyResponse, ...errors },
      },
    },
    async (request) => {
      const key = await rotateFingerprintKey(app.db, request.auth.teamId);
      app.teamPolicy.invalidate(request.auth.teamId);
      return { fingerprintKeyId: key.id };
    },
  );

  app.get(
    "/audit-events",
    { schema: { summary: "This team's audit events, newest first (metadata only)", querystring: AuditEventQuery, response: { 200: AuditEventList, ...errors } } },
    async (request) => {
      const { limit, before } = request.query;
      const rows = await listAuditEvents(app.db, request.auth.teamId, { limit, before });
      return {
        events: rows.map((e) => ({
          id: e.id,
          kind: e.kind,
          namespace: e.namespace,
          path: e.path,
          code: e.code,
          user: e.principalName,
          clientId: e.clientId,
          findings: e.findings ?? null,
          createdAt: e.createdAt.toISOString(),
        })),
        nextBefore: rows.length === limit ? rows[rows.length - 1]!.id : null,
      };
    },
  );
};

export default adminRoutes;
