/**
 * `teammem-server member list|role`: a team's members and their roles, through a running server
 * (`--server --token`) or on the database (`--team`; a role change is audited with actor `cli`).
 */
import { Argument, type Command } from "@commander-js/extra-typings";
import { ROLES } from "../auth/auth-context.js";
import { withBackend } from "./admin-backend.js";
import { withAdminOptions } from "./admin-options.js";
import { out, parseName, type CliContext } from "./context.js";

export function register(program: Command, ctx: CliContext): void {
  const member = program.command("member").description("list a team's members and set their roles");

  withAdminOptions(member.command("list").description("members, their roles and when they joined (tab-separated)")).action(async (o) => {
    await withBackend(ctx, o, "member list", true, async (b) => {
      const { members } = await b.members();
      if (o.json) return out(ctx, JSON.stringify({ members }, null, 2));
      for (const m of members) out(ctx, `${m.user}\t${m.role}\t${m.joinedAt}`);
    });
  });

  withAdminOptions(member.command("role").description("set a member's role (the team's only admin cannot be demoted)"))
    .argument("<user>", "member name", parseName("user"))
    .addArgument(new Argument("<role>", "the new role").choices(ROLES))
    .action(async (user, role, o) => {
      await withBackend(ctx, o, "member role", true, async (b) => {
        const changed = await b.setRole(user, role);
        out(ctx, o.json ? JSON.stringify(changed, null, 2) : `${changed.user}: ${changed.previousRole} -> ${changed.role}`);
      });
    });
}
