/**
 * `teammem-server token create|revoke|list`: issue a token (stdout: the token only; the team must
 * exist, except `default`, the first start's team), revoke one by id, list a team's tokens. `revoke`
 * and `list` act on the database or through a running server's admin API (`--server --token`).
 * Both are recorded as audit events with the actor `cli` (create also `team_created` for a new
 * `default` team, `member_added` for a new user, `member_role_changed` for a raised role). While a server holds the embedded data
 * folder they exit 3 and print the admin API call doing the same.
 */
import { Option, type Command } from "@commander-js/extra-typings";
import { findTeam } from "../admin/teams.js";
import { issueAuditedToken } from "../admin/tokens.js";
import { CLI_ACTOR } from "../audit/events.js";
import { ROLES } from "../auth/auth-context.js";
import { teamNames, withBackend } from "./admin-backend.js";
import { withAdminOptions } from "./admin-options.js";
import { CliError, EXIT, dataDirOption, err, out, parseDays, parseName, parseUuid, withStore, type CliContext } from "./context.js";

export function register(program: Command, ctx: CliContext): void {
  const token = program.command("token").description("issue and revoke tokens");
  token
    .command("create")
    .description("issue a token (stdout: the token only); the team must exist (team create), the user is created if new")
    .requiredOption("--team <name>", "team name", parseName("team"))
    .requiredOption("--user <name>", "user name", parseName("user"))
    .addOption(new Option("--role <role>", "role in the team").choices(ROLES).makeOptionMandatory())
    .option("--expires-in-days <n>", "lifetime in days (default: no expiry)", parseDays)
    .addOption(dataDirOption())
    .action(async (o) => {
      const body = JSON.stringify({ user: o.user, role: o.role, ...(o.expiresInDays ? { expiresInDays: o.expiresInDays } : {}) });
      const apiExample = `curl -X POST {url}/v1/admin/tokens -H "Authorization: Bearer <admin token>" -H "Content-Type: application/json" -d '${body}'`;
      await withStore(ctx, { dataDir: o.dataDir, purpose: "token create", apiExample }, async (store) => {
        const db = store.database.db;
        // A typo must not create a team; `default` is the first start's team, made on first use.
        if (o.team !== "default" && !(await findTeam(db, o.team))) {
          throw new CliError(`team "${o.team}" does not exist; create it with team create ${o.team} (existing teams: ${await teamNames(db)})`, EXIT.usage);
        }
        const issued = await issueAuditedToken(
          db,
          store.secrets.jwtSecret,
          { teamName: o.team, userName: o.user, role: o.role, ...(o.expiresInDays ? { expiresInSeconds: o.expiresInDays * 86_400 } : {}) },
          CLI_ACTOR,
        );
        err(ctx, `issued token ${issued.tokenId} for ${o.user} (${o.role}) in team ${o.team}`);
        out(ctx, issued.token);
      });
    });
  withAdminOptions(token.command("revoke").description("revoke a token by its id, on the database or through --server (takes effect on running servers within 5 s)"))
    .argument("<tokenId>", "token id (a UUID, as printed by token create, token list or GET /v1/admin/tokens)", parseUuid("a token id"))
    .action(async (tokenId, o) => {
      const apiExample = `curl -X DELETE {url}/v1/admin/tokens/${tokenId} -H "Authorization: Bearer <admin token>"`;
      await withBackend(
        ctx,
        o,
        "token revoke",
        false,
        async (b) => {
          const revoked = await b.revokeToken(tokenId);
          if (o.json) return out(ctx, JSON.stringify({ tokenId: revoked.tokenId, revokedAt: revoked.revokedAt }, null, 2));
          out(ctx, `revoked token ${tokenId}${revoked.user !== undefined ? ` (${revoked.user})` : ""} at ${revoked.revokedAt}`);
        },
        apiExample,
      );
    });
  withAdminOptions(token.command("list").description("a team's tokens, newest first, never their values (tab-separated: id, user, role, created, expires, revoked)")).action(async (o) => {
    await withBackend(ctx, o, "token list", true, async (b) => {
      const { tokens } = await b.tokens();
      if (o.json) return out(ctx, JSON.stringify({ tokens }, null, 2));
      for (const t of tokens) out(ctx, `${t.tokenId}\t${t.user}\t${t.role}\t${t.createdAt}\t${t.expiresAt ?? "never"}\t${t.revokedAt ? `revoked ${t.revokedAt}` : "valid"}`);
    });
  });
}
