/**
 * /v1/admin/bypasses and /v1/admin/policy: the team's bypass requests (list, one, approve, deny,
 * revoke) and the policy deciding whether a request applies at once or waits for an admin. The
 * backend of the CLI's `bypass` commands and of the console's pending-bypasses page.
 */
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { BypassDecision, BypassList, BypassListQuery, BypassParams, BypassResponse, ErrorBody, TeamPolicy } from "@teammem/protocol";
import { actorOf } from "../../auth/actor.js";
import { bypassToWire, decideBypass, listBypasses, readBypass, setTeamBypassPolicy, teamBypassPolicy, type BypassAction } from "../../bypasses/store.js";
import { Refusal } from "../../errors/refusal.js";
import { adminErrors } from "./replies.js";

const ACTIONS: Record<BypassAction, string> = {
  approve: "Approve a pending request: from now on that value (by its fingerprint) syncs in every file of every namespace of the team, not only where it was asked for (409 bypass_not_pending otherwise)",
  deny: "Deny a pending request (409 bypass_not_pending otherwise)",
  revoke: "Revoke an approved bypass: the fingerprint is held back again (409 bypass_not_approved otherwise)",
};

const bypassRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    "/policy",
    { schema: { summary: "The team's policy: bypassPolicy immediate or approval", response: { 200: TeamPolicy, ...adminErrors } } },
    async (request) => ({ bypassPolicy: await teamBypassPolicy(app.db, request.auth.teamId) }),
  );

  app.put(
    "/policy",
    {
      schema: {
        summary:
          "Set the team's policy: immediate approves bypass requests at once, approval leaves them pending for an admin (pending ones stay pending); a change is audited (bypass_policy_changed)",
        body: TeamPolicy,
        response: { 200: TeamPolicy, ...adminErrors },
      },
    },
    async (request) => {
      await setTeamBypassPolicy(app.db, request.auth.teamId, request.body.bypassPolicy, actorOf(request));
      return { bypassPolicy: request.body.bypassPolicy };
    },
  );

  app.get(
    "/bypasses",
    {
      schema: {
        summary: "The team's bypass requests, newest first (status=pending by default; approved, denied, revoked or all)",
        querystring: BypassListQuery,
        response: { 200: BypassList, ...adminErrors },
      },
    },
    async (request) => {
      const { key } = await app.teamPolicy.scanPolicy(request.auth.teamId);
      const { rows, nextBefore } = await listBypasses(app.db, request.auth.teamId, request.query);
      return { bypasses: rows.map((r) => bypassToWire(r, key.id)), nextBefore };
    },
  );

  app.get(
    "/bypasses/:id",
    { schema: { summary: "One bypass request of the team", params: BypassParams, response: { 200: BypassResponse, ...adminErrors } } },
    async (request) => {
      const row = await readBypass(app.db, request.auth.teamId, request.params.id);
      if (!row) throw new Refusal("not_found", "no such bypass request in this team");
      const { key } = await app.teamPolicy.scanPolicy(request.auth.teamId);
      return { bypass: bypassToWire(row, key.id) };
    },
  );

  for (const action of Object.keys(ACTIONS) as BypassAction[]) {
    app.post(
      `/bypasses/:id/${action}`,
      {
        schema: {
          summary: ACTIONS[action],
          params: BypassParams,
          body: BypassDecision.nullish(),
          response: { 200: BypassResponse, ...adminErrors, 409: ErrorBody, 422: ErrorBody },
        },
      },
      async (request) => {
        const teamId = request.auth.teamId;
        const row = await decideBypass(app.db, teamId, request.params.id, action, actorOf(request), request.body?.note ?? null);
        if (!row) throw new Refusal("not_found", "no such bypass request in this team");
        app.teamPolicy.invalidate(teamId);
        const { key } = await app.teamPolicy.scanPolicy(teamId);
        return { bypass: bypassToWire(row, key.id) };
      },
    );
  }
};

export default bypassRoutes;
