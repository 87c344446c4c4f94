/**
 * `teammem-server purge --namespace NS --path P --entry-version N --reason TEXT [--same-content]`: remove
 * content that should never have been stored (see the README's *Purge*), through a running server
 * (`--server --token`) or on the database (`--team`; actor `cli`).
 */
import type { Command } from "@commander-js/extra-typings";
import { checkExistingEntryPath, NamespaceName, PurgeRequest } from "@teammem/protocol";
import { withBackend, type BackendOptions } from "./admin-backend.js";
import { withAdminOptions } from "./admin-options.js";
import { CliError, EXIT, out, type CliContext } from "./context.js";

export function register(program: Command, ctx: CliContext): void {
  withAdminOptions(program.command("purge").description("purge a version's content from history, head, conflict records and stored results (a purged head becomes a tombstone)"))
    .requiredOption("--namespace <name>", "namespace")
    .requiredOption("--path <path>", "entry path, as inside the client's team/ folder: notes.md for team/notes.md")
    .requiredOption("--entry-version <n>", "the version whose content goes (--version is the program's own flag)")
    .requiredOption("--reason <text>", "why (kept in history and the audit log; 1-500 characters, one line)")
    .option("--same-content", "also every other version of the entry holding the same content")
    .action(async (opts) => {
      // The shared admin options' generic typing loses these required ones: spelled out here.
      const o = opts as unknown as BackendOptions & { namespace: string; path: string; entryVersion: string; reason: string; sameContent?: boolean; json?: boolean };
      if (!NamespaceName.safeParse(o.namespace).success) throw new CliError("--namespace: not a namespace name", EXIT.usage);
      const path = checkExistingEntryPath(o.path);
      if (!path.ok) throw new CliError(`--path: ${path.message}`, EXIT.usage);
      if (!/^\d+$/.test(o.entryVersion)) throw new CliError(`--entry-version must be a version number (a whole number from 1), got ${JSON.stringify(o.entryVersion)}`, EXIT.usage);
      const parsed = PurgeRequest.safeParse({ path: path.path, version: Number(o.entryVersion), reason: o.reason, sameContent: o.sameContent === true });
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        const key = String(issue.path[0] ?? "?");
        throw new CliError(`--${key === "version" ? "entry-version" : key}: ${issue.message}`, EXIT.usage);
      }
      await withBackend(ctx, o, "purge", true, async (b) => {
        const r = await b.purge(o.namespace, parsed.data);
        if (o.json) return out(ctx, JSON.stringify(r, null, 2));
        out(ctx, `purged ${r.path} version(s) ${r.versions.join(", ") || "none (already purged)"}` + (r.tombstoneVersion ? `; the head is now tombstone version ${r.tombstoneVersion}` : "") + `; ${r.conflicts} conflict record(s), ${r.operations} stored result(s) scrubbed`);
      });
    });
}
