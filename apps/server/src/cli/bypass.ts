/**
 * `teammem-server bypass list|approve|deny|revoke`: a team's bypass requests, through a running
 * server (`--server --token`: as the token's admin) or on the database (`--team`; actor `cli`).
 * Decisions are audit events; running servers apply one within 5 s.
 */
import { Option, type Command } from "@commander-js/extra-typings";
import { BypassDecision, BypassParams, type Bypass, type BypassListQuery } from "@teammem/protocol";
import type { BypassAction } from "../bypasses/store.js";
import { withBackend } from "./admin-backend.js";
import { withAdminOptions } from "./admin-options.js";
import { CliError, EXIT, out, type CliContext } from "./context.js";

/** One line of a request: id, status, where, rule, fingerprint, who and why. */
export function bypassLine(b: Bypass): string {
  const decided = b.decidedBy ? ` ${b.status === "denied" ? "denied" : "approved"} by ${b.decidedBy}` : "";
  const revoked = b.revokedBy ? ` revoked by ${b.revokedBy}` : "";
  return (
    `${b.id}\t${b.status}${b.currentKey ? "" : " (old key)"}\t${b.namespace}:${b.path}:${b.line}\t${b.ruleId}\t${b.fingerprint}\t` +
    `${b.requestedBy} ${b.reason}${b.reasonText ? `: ${b.reasonText}` : ""}${decided}${b.note ? ` (${b.note})` : ""}${revoked}${b.revokeNote ? ` (${b.revokeNote})` : ""}`
  );
}

function checkId(id: string): string {
  if (!BypassParams.safeParse({ id }).success) throw new CliError("the bypass id is a UUID (bypass list shows them)", EXIT.usage);
  return id;
}

function checkNote(note: string | undefined): string | undefined {
  if (note === undefined) return undefined;
  const parsed = BypassDecision.safeParse({ note });
  if (!parsed.success) throw new CliError(`--note: ${parsed.error.issues[0]?.message ?? "not accepted"} (1-500 characters on one line)`, EXIT.usage);
  return parsed.data.note;
}

export function register(program: Command, ctx: CliContext): void {
  const bypass = program.command("bypass").description("list and decide a team's bypass requests");

  withAdminOptions(bypass.command("list").description("the team's requests, newest first (tab-separated: id, status, namespace:path:line, rule, fingerprint, who and why)"))
    .addOption(new Option("--status <status>", "which requests").choices(["pending", "approved", "denied", "revoked", "all"] as const).default("pending" as const))
    .option("--limit <n>", "requests per page, 1-500", "100")
    .action(async (o) => {
      const limitText = o.limit ?? "100";
      const status = (o.status ?? "pending") as BypassListQuery["status"];
      const limit = Number(limitText);
      if (!/^\d+$/.test(limitText) || limit < 1 || limit > 500) throw new CliError("--limit: a whole number from 1 to 500", EXIT.usage);
      await withBackend(ctx, o, "bypass list", true, async (b) => {
        const page = await b.bypasses({ status, limit });
        if (o.json) return out(ctx, JSON.stringify(page, null, 2));
        for (const r of page.bypasses) out(ctx, bypassLine(r));
        if (page.bypasses.length === 0) ctx.io.stderr(`no ${status === "all" ? "" : `${status} `}bypass requests\n`);
      });
    });

  const actions: [BypassAction, string][] = [
    ["approve", "approve a pending request: from now on that value (by its fingerprint) syncs in every file of every namespace of the team, not only where it was asked for"],
    ["deny", "deny a pending request"],
    ["revoke", "revoke an approved bypass: the value is held back again"],
  ];
  for (const [action, description] of actions) {
    withAdminOptions(bypass.command(action).description(description))
      .argument("<id>", "request id (bypass list shows them)")
      .option("--note <text>", "a note on the decision, shown to the requester (1-500 characters, one line)")
      .action(async (id, o) => {
        const note = checkNote(o.note);
        await withBackend(ctx, o, `bypass ${action}`, true, async (b) => {
          const decided = await b.decide(checkId(id), action, note);
          out(ctx, o.json ? JSON.stringify({ bypass: decided }, null, 2) : bypassLine(decided));
        });
      });
  }
}
