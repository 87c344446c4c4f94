/**
 * `teammem-server team create <name>`: a team with its first admin, whose token goes to stdout.
 * `team list`: the teams (on the database: all; through `--server`: the token's).
 */
import type { Command } from "@commander-js/extra-typings";
import { findTeam } from "../admin/teams.js";
import { issueAuditedToken } from "../admin/tokens.js";
import { CLI_ACTOR } from "../audit/events.js";
import { withBackend } from "./admin-backend.js";
import { withAdminOptions } from "./admin-options.js";
import { CliError, dataDirOption, err, out, parseDays, parseName, withStore, type CliContext } from "./context.js";

export function register(program: Command, ctx: CliContext): void {
  const team = program.command("team").description("manage teams");
  team
    .command("create")
    .description("create a team with an admin user and print that admin's token (stdout: the token only)")
    .argument("<name>", "team name", parseName("team"))
    .option("--admin <user>", "name of the team's first admin", parseName("user"), "admin")
    .option("--expires-in-days <n>", "token lifetime in days (default: no expiry)", parseDays)
    .addOption(dataDirOption())
    .action(async (name, o) => {
      await withStore(ctx, { dataDir: o.dataDir, purpose: "team create" }, async (store) => {
        const db = store.database.db;
        if (await findTeam(db, name)) throw new CliError(`team "${name}" already exists`);
        // One transaction: the team, its admin and the token, with their audit events (team_created, member_added, token_issued).
        const issued = await issueAuditedToken(
          db,
          store.secrets.jwtSecret,
          { teamName: name, userName: o.admin, role: "admin", ...(o.expiresInDays ? { expiresInSeconds: o.expiresInDays * 86_400 } : {}) },
          CLI_ACTOR,
        );
        err(ctx, `created team "${name}" with admin "${o.admin}" (token id ${issued.tokenId})`);
        out(ctx, issued.token);
      });
    });
  withAdminOptions(team.command("list").description("teams, their creation time and member count (tab-separated)")).action(async (o) => {
    await withBackend(ctx, o, "team list", false, async (b) => {
      const teams = await b.teams();
      if (o.json) return out(ctx, JSON.stringify({ teams }, null, 2));
      for (const t of teams) out(ctx, `${t.name}\t${t.createdAt}\t${t.members} member(s)`);
    });
  });
}
