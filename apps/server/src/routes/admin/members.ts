/** /v1/admin/members and /v1/admin/team: the team's members and their roles. */
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { ErrorBody, MemberList, MemberParams, MemberRoleChange, SetMemberRoleRequest, TeamInfo } from "@teammem/protocol";
import { listMembers, listTeams, setMemberRole } from "../../admin/teams.js";
import { actorOf } from "../../auth/actor.js";
import { Refusal } from "../../errors/refusal.js";
import { adminErrors } from "./replies.js";

const memberRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    "/team",
    { schema: { summary: "This team: name, creation time, member count", response: { 200: TeamInfo, ...adminErrors } } },
    async (request) => {
      const [team] = await listTeams(app.db, request.auth.teamId);
      return { name: team!.name, createdAt: team!.createdAt.toISOString(), members: team!.members };
    },
  );

  app.get(
    "/members",
    { schema: { summary: "List this team's members and roles", response: { 200: MemberList, ...adminErrors } } },
    async (request) => {
      const rows = await listMembers(app.db, request.auth.teamId);
      return { members: rows.map((m) => ({ ...m, joinedAt: m.joinedAt.toISOString() })) };
    },
  );

  app.put(
    "/members/:user",
    {
      schema: {
        summary: "Set a member's role: a request acts with the lower of its token's role and this one; the only admin cannot be demoted (409 last_admin)",
        params: MemberParams,
        body: SetMemberRoleRequest,
        response: { 200: MemberRoleChange, ...adminErrors, 409: ErrorBody },
      },
    },
    async (request) => {
      const { user } = request.params;
      const changed = await setMemberRole(app.db, request.auth.teamId, user, request.body.role, actorOf(request)); // with its audit event
      if (!changed) throw new Refusal("not_found", "no member of this name in this team");
      if (changed.previousRole !== changed.role) app.tokenCache.clear();
      return { user, ...changed };
    },
  );
};

export default memberRoutes;
