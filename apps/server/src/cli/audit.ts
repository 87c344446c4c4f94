/**
 * `teammem-server audit list|show|summary|export`: the audit log with the admin API's filters, through
 * a running server (`--server --token`: the token's team) or on the database (`--team`, or every
 * team's events and those of no team without it).
 */
import { Option, type Command } from "@commander-js/extra-typings";
import { AuditEventQuery, AuditExportQuery, AuditFilter, type AuditEvent } from "@teammem/protocol";
import { withBackend } from "./admin-backend.js";
import { withAdminOptions } from "./admin-options.js";
import { CliError, EXIT, out, type CliContext } from "./context.js";

interface FilterOptions {
  from?: string;
  to?: string;
  kind?: string;
  user?: string;
  namespace?: string;
  rule?: string;
  pathPrefix?: string;
  fingerprint?: string;
}

function withFilters<C extends Command<[], Record<string, never>>>(command: C) {
  return withAdminOptions(command)
    .option("--from <time>", "events at or after this time (ISO 8601 with offset, e.g. 2026-11-01T00:00:00Z)")
    .option("--to <time>", "events before this time (ISO 8601 with offset)")
    .option("--kind <kinds>", "comma-separated event kinds, e.g. upload_rejected,client_blocked")
    .option("--user <name>", "the actor or the target user")
    .option("--namespace <name>", "namespace")
    .option("--rule <ruleId>", "rule id of a finding, e.g. github-pat")
    .option("--path-prefix <prefix>", "start of the path")
    .option("--fingerprint <hex>", "fingerprint of a finding (32 hex digits)");
}

/** The filter options as the API's query parameters, checked with the API's own schema (exit 2 naming the bad one). */
function filterOf<S extends typeof AuditFilter | typeof AuditEventQuery | typeof AuditExportQuery>(schema: S, o: FilterOptions, extra: Record<string, string | undefined> = {}) {
  const raw: Record<string, string> = {};
  const named = { from: o.from, to: o.to, kind: o.kind, user: o.user, namespace: o.namespace, ruleId: o.rule, pathPrefix: o.pathPrefix, fingerprint: o.fingerprint, ...extra };
  for (const [k, v] of Object.entries(named)) if (v !== undefined) raw[k] = v;
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const flag = (key: string) => `--${{ ruleId: "rule", pathPrefix: "path-prefix" }[key] ?? key}`;
    // The value given is named too: zod's "expected number, received NaN" alone hides that `--before xyz` was the input.
    const given = (key: string) => (raw[key] !== undefined ? ` (got ${JSON.stringify(raw[key])})` : "");
    const lines = parsed.error.issues.map((i) => `${flag(String(i.path[0] ?? "?"))}: ${i.message}${given(String(i.path[0] ?? ""))}`);
    throw new CliError(`invalid filter:\n  ${lines.join("\n  ")}`, EXIT.usage);
  }
  return parsed.data as ReturnType<S["parse"]>;
}

/** One line of an event: id, time, kind, actor and what it is about. */
export function eventLine(e: AuditEvent): string {
  const about = [
    e.namespace && `ns=${e.namespace}`,
    e.path && `path=${e.path}`,
    e.targetUser && `user=${e.targetUser}`,
    e.role && `role=${e.previousRole ? `${e.previousRole}->` : ""}${e.role}`,
    e.policy && `policy=${e.previousPolicy ? `${e.previousPolicy}->` : ""}${e.policy}`,
    // The key of a rotation (with findings, the key their fingerprints were made with is in `audit show`).
    e.kind === "fingerprint_key_rotated" && e.fingerprintKeyId !== null && `key=${e.fingerprintKeyId}`,
    e.version !== null && `v${e.version}`,
    e.code && `code=${e.code}`,
    e.reason && `reason=${e.reason}`,
    e.count !== null && `count=${e.count}`,
    e.epoch && `epoch=${e.epoch}`,
    ...(e.findings ?? []).map((f) => `${f.ruleId}@${f.line}${f.fingerprint ? `#${f.fingerprint}` : ""}`),
  ].filter(Boolean);
  return `${e.id}\t${e.createdAt}\t${e.kind}\t${e.actor ?? "-"}\t${about.join(" ")}`;
}

export function register(program: Command, ctx: CliContext): void {
  const audit = program.command("audit").description("read the audit log (through --server with an admin token, or on the database)");

  withFilters(audit.command("list").description("matching events, newest first (tab-separated: id, time, kind, actor, details)"))
    .option("--limit <n>", "events per page, 1-500", "100")
    .option("--before <id>", "only events with an id below this (the next page: the last id shown)")
    .action(async (o) => {
      const { limit, before, ...filter } = filterOf(AuditEventQuery, o, { limit: o.limit, before: o.before });
      await withBackend(ctx, o, "audit list", false, async (b) => {
        const page = await b.auditList(filter, { limit, before });
        if (o.json) return out(ctx, JSON.stringify(page, null, 2));
        for (const e of page.events) out(ctx, eventLine(e));
        if (page.nextBefore !== null) ctx.io.stderr(`more: --before ${page.nextBefore}\n`);
      });
    });

  withAdminOptions(audit.command("show").description("one event, every field (JSON)"))
    .argument("<id>", "event id")
    .action(async (id, o) => {
      const n = Number(id);
      if (!/^\d+$/.test(id) || n < 1 || !Number.isSafeInteger(n)) throw new CliError("the event id is a positive whole number", EXIT.usage);
      await withBackend(ctx, o, "audit show", false, async (b) => out(ctx, JSON.stringify(await b.auditShow(n), null, 2)));
    });

  withFilters(audit.command("summary").description("counts of matching events by kind, rule, user, namespace and day")).action(async (o) => {
    const filter = filterOf(AuditFilter, o);
    await withBackend(ctx, o, "audit summary", false, async (b) => {
      const s = await b.auditSummary(filter);
      if (o.json) return out(ctx, JSON.stringify(s, null, 2));
      out(ctx, `total\t${s.total}`);
      for (const [title, rows] of [["kind", s.byKind], ["rule", s.byRule], ["user", s.byUser], ["namespace", s.byNamespace]] as const)
        for (const r of rows) out(ctx, `${title}\t${r.key}\t${r.count}`);
      for (const d of s.byDay) out(ctx, `day\t${d.day}\t${d.count}`);
    });
  });

  withFilters(audit.command("export").description("every matching event, oldest first, streamed to stdout"))
    .addOption(new Option("--format <format>", "csv or jsonl").choices(["csv", "jsonl"] as const).default("jsonl" as const))
    .action(async (o) => {
      const { format, ...filter } = filterOf(AuditExportQuery, o, { format: o.format });
      await withBackend(ctx, o, "audit export", false, (b) => b.auditExport(filter, format, (chunk) => ctx.io.stdout(chunk)));
    });
}
