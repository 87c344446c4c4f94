/**
 * `teammem history PATH [--json]`: every version of one team file on the server, newest first
 * (`GET /history`): version, time, author, kind (edit, delete = tombstone, merge, restore, resolve,
 * rename with the other path), size, and the file's conflict records. Reads only; no lock, no
 * state change. Exit 2 for a private path, a path outside the folder or one without history.
 */
import type { ConflictRecord, VersionInfo } from "@teammem/protocol";
import { createApi } from "../http/api.js";
import { requireConfig } from "../state/config.js";
import { displayPath } from "../state/layout.js";
import { layoutFor, requireToken, type CommandContext, type CommonCommand, type OptionsOf } from "./common.js";
import { checkSpelling, missingOnServer, teamFileArg } from "./entry-args.js";

export const name = "history";
export const summary = "list the server's versions of a team file (author, time, kind: edits, deletes, renames, restores)";

function define(command: CommonCommand) {
  return command.argument("<path>", "the team file, e.g. team/build.md (it may be deleted locally)").option("--json", "print the history as JSON");
}

export function register(command: CommonCommand, ctx: CommandContext, exit: (code: number) => void): void {
  define(command).action(async (path, options) => exit(await run(path, options, ctx)));
}

/** What a version did, in words: `edit`, `create`, `delete (tombstone)`, `rename from team/a.md`... */
export function kindOf(v: VersionInfo): string {
  if (v.renamedTo !== undefined) return `renamed to ${displayPath(v.renamedTo)} (tombstone)`;
  if (v.renamedFrom !== undefined) return `renamed from ${displayPath(v.renamedFrom)}`;
  if (v.deleted) return v.kind === "delete" ? "delete (tombstone)" : `${v.kind} (tombstone)`;
  if (v.kind === "write") return v.parentVersion === null ? "create" : "edit";
  return v.kind;
}

/** The JSON shape of one version (documented in the README). */
function versionJson(v: VersionInfo) {
  return {
    version: v.version,
    kind: v.kind,
    description: kindOf(v),
    deleted: v.deleted,
    author: v.author,
    createdAt: v.createdAt,
    size: v.size,
    sha256: v.sha256,
    parentVersion: v.parentVersion,
    baseVersion: v.baseVersion,
    clientId: v.clientId,
    ...(v.renamedFrom !== undefined ? { renamedFrom: displayPath(v.renamedFrom) } : {}),
    ...(v.renamedTo !== undefined ? { renamedTo: displayPath(v.renamedTo) } : {}),
  };
}

function conflictJson(c: ConflictRecord) {
  return {
    id: c.id,
    status: c.status,
    author: c.author,
    baseVersion: c.baseVersion,
    headVersion: c.headVersion,
    deleted: c.deleted,
    createdAt: c.createdAt,
    resolvedVersion: c.resolvedVersion,
  };
}

async function run(rawPath: string, options: OptionsOf<typeof define>, ctx: CommandContext): Promise<number> {
  const layout = await layoutFor(options, ctx);
  const config = await requireConfig(layout);
  const path = teamFileArg(layout, rawPath);
  await checkSpelling(layout, path);
  const token = requireToken(options, ctx, config);
  const api = createApi({ server: config.server, namespace: config.namespace, token });
  const history = await api.history(path).catch((err: unknown) => {
    throw missingOnServer(err, path);
  });
  const shown = displayPath(path);
  if (options.json) {
    const json = { ok: true, path: shown, versions: history.versions.map(versionJson), conflicts: history.conflicts.map(conflictJson) };
    ctx.io.stdout(JSON.stringify(json, null, 2) + "\n");
    return 0;
  }
  const n = history.versions.length;
  const lines = [`${shown}: ${n} version${n === 1 ? "" : "s"} on the server, newest first`];
  for (const v of history.versions) {
    const size = v.deleted ? "" : `  ${v.size} B  sha256 ${v.sha256?.slice(0, 12) ?? ""}`;
    lines.push(`v${v.version}  ${v.createdAt}  ${v.author}  ${kindOf(v)}${size}`);
  }
  if (history.conflicts.length > 0) {
    lines.push(`conflict records (${history.conflicts.filter((c) => c.status === "open").length} open):`);
    for (const c of history.conflicts)
      lines.push(
        `  ${c.id}  ${c.status}  ${c.author}'s ${c.deleted ? "delete" : "edit"} against v${c.headVersion} at ${c.createdAt}` +
          (c.resolvedVersion !== null ? `, resolved by v${c.resolvedVersion}` : ""),
      );
  }
  ctx.io.stdout(lines.join("\n") + "\n");
  return 0;
}
