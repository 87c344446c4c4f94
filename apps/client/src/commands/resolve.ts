/**
 * `teammem resolve <path> [--take file|mine|theirs]`: resolves the open conflict record(s) the
 * server keeps for one team file, by writing the resolution as the file's new head version:
 * - `file` (default): the file as it is now in team/ (absent: the entry is deleted);
 * - `mine`: the side saved in `.teammem/conflicts/` (or the conflict record's content);
 * - `theirs`: the server's current version.
 * The local file ends up equal to the resolution, the local conflict copies are removed and
 * `status` no longer lists the conflict. The resolution is scanned first like every upload.
 * Exit 1 when the server refuses (e.g. it has a newer version: sync, check, resolve again).
 */
import { randomUUID } from "node:crypto";
import { readFile, rm, rmdir } from "node:fs/promises";
import { dirname, join, relative, resolve, sep } from "node:path";
import { InvalidArgumentError } from "@commander-js/extra-typings";
import { checkEntryPath, type ConflictRecord } from "@teammem/protocol";
import { scan } from "@teammem/scanner";
import { ClientError, ServerError, UsageError } from "../errors.js";
import { createApi } from "../http/api.js";
import { readTeamFile, removeTeamFile, writeTeamFile } from "../local/team-files.js";
import { requireConfig } from "../state/config.js";
import { displayPath, type Layout } from "../state/layout.js";
import { acquireLock } from "../state/lock.js";
import { loadReports, saveConflicts, type Conflict } from "../state/reports.js";
import { advanceBase, loadSyncState, saveSyncState } from "../state/sync-state.js";
import { layoutFor, requireToken, type CommandContext, type CommonCommand, type OptionsOf } from "./common.js";

export const name = "resolve";
export const summary = "resolve the server's open conflict(s) on a team file (default: the file as it is now wins)";

const SIDES = ["file", "mine", "theirs"] as const;
type Side = (typeof SIDES)[number];

function parseSide(raw: string): Side {
  if (!(SIDES as readonly string[]).includes(raw)) throw new InvalidArgumentError(`--take must be one of ${SIDES.join(", ")} (got "${raw}")`);
  return raw as Side;
}

function define(command: CommonCommand) {
  return command
    .argument("<path>", "the team file, e.g. team/style.md")
    .option("--take <side>", "file: the file as it is now; mine: your saved conflict copy; theirs: the server's version", parseSide, "file");
}

export function register(command: CommonCommand, ctx: CommandContext, exit: (code: number) => void): void {
  define(command).action(async (path, options) => exit(await run(path, options, ctx)));
}

/** The entry path of `raw`: a path inside team/ (resolved against the cwd), `team/<entry>`, or the entry path itself. */
function entryPathOf(raw: string, layout: Layout, cwd: string): string {
  const abs = resolve(cwd, raw);
  let entry = abs.startsWith(layout.team + sep) ? relative(layout.team, abs).split(sep).join("/") : raw.replace(/^team\//, "");
  entry = entry.replace(/^\.\//, "");
  const check = checkEntryPath(entry);
  if (!check.ok) throw new UsageError(`${raw} is not a team file path (${check.message}); give it as team/<file>`);
  return check.path;
}

async function run(rawPath: string, options: OptionsOf<typeof define>, ctx: CommandContext): Promise<number> {
  const take = options.take;
  const layout = await layoutFor(options, ctx);
  const config = await requireConfig(layout);
  const token = requireToken(options, ctx, config);
  const path = entryPathOf(rawPath, layout, ctx.cwd);
  const shown = displayPath(path);
  const api = createApi({ server: config.server, namespace: config.namespace, token });

  const release = await acquireLock(layout);
  try {
    const state = await loadSyncState(layout);
    const reports = await loadReports(layout);
    const local = reports.conflicts.filter((c) => c.path === path);
    const records = (await api.openConflicts()).conflicts.filter((c) => c.path === path);
    if (records.length === 0) {
      if (local.length === 0) throw new ClientError(`no open conflict for ${shown} (teammem status lists the conflicts)`);
      await dropLocal(layout, reports.conflicts, local);
      await saveConflicts(layout, reports.conflicts);
      ctx.io.stdout(`no open conflict for ${shown} on the server (already resolved); removed the local conflict copy\n`);
      return 0;
    }

    const content = await resolution(take, layout, path, local, records, api, config.clientId);
    if (content !== null) {
      const findings = scan(content, { fingerprintKey: config.fingerprintKey });
      if (findings.length > 0)
        throw new ClientError(
          `not resolved: the resolution holds a credential (${findings.map((f) => `${shown}:${f.line} ${f.ruleId}`).join(", ")}); remove it first`,
        );
    }
    let baseVersion = take === "theirs" ? (await api.entry(path)).version : (state.bases[path]?.version ?? 0);
    let written: { version: number; sha256: string | null } | undefined;
    for (const record of records) {
      try {
        const body = content === null ? { opId: randomUUID(), baseVersion, delete: true as const } : { opId: randomUUID(), baseVersion, content };
        const result = await api.resolveConflict(record.id, { ...body, clientId: config.clientId });
        written = { version: result.version, sha256: result.deleted ? null : result.sha256 };
        baseVersion = result.version;
      } catch (err) {
        if (err instanceof ServerError && err.code === "already_exists") continue; // resolved meanwhile
        if (err instanceof ServerError && err.code === "version_conflict")
          throw new ClientError(
            `not resolved: the server has a newer version of ${shown} (v${String(err.details?.["currentVersion"] ?? "?")}) than this folder's (v${baseVersion}); ` +
              "run teammem sync, check the file, then resolve again",
          );
        throw err;
      }
    }
    if (take !== "file") {
      if (content === null) await removeTeamFile(layout, path);
      else await writeTeamFile(layout, path, content);
    }
    if (written) advanceBase(state, path, written);
    await saveSyncState(layout, state);
    await dropLocal(layout, reports.conflicts, local);
    await saveConflicts(layout, reports.conflicts);
    ctx.io.stdout(
      `resolved ${records.length} conflict${records.length === 1 ? "" : "s"} on ${shown} with ${take === "file" ? "the file as it is" : take}` +
        (written ? `: server version ${written.version}${written.sha256 === null ? " (deleted)" : ""}` : "") +
        "\n",
    );
    return 0;
  } finally {
    await release();
  }
}

/** The content the conflict is resolved with (null: delete the entry). */
async function resolution(
  take: Side,
  layout: Layout,
  path: string,
  local: readonly Conflict[],
  records: readonly ConflictRecord[],
  api: ReturnType<typeof createApi>,
  clientId: string,
): Promise<string | null> {
  if (take === "theirs") {
    const head = await api.entry(path);
    return head.deleted ? null : head.content;
  }
  if (take === "mine") {
    const copy = [...local].reverse().find((c) => c.copy !== null);
    if (copy?.copy) {
      try {
        return await readFile(join(layout.root, copy.copy), "utf8");
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
      }
    }
    const mine = [...records].reverse().find((r) => r.clientId === clientId) ?? records[records.length - 1]!;
    return mine.deleted ? null : mine.content;
  }
  const file = await readTeamFile(layout, path);
  if (file.kind === "unsafe") throw new ClientError(`cannot read ${displayPath(path)}: ${file.reason}`);
  return file.kind === "file" ? file.content : null;
}

/** Removes the local conflict copies of `drop` (and their folders when empty) and their records from `all`. */
async function dropLocal(layout: Layout, all: Conflict[], drop: readonly Conflict[]): Promise<void> {
  for (const c of drop) {
    if (c.copy === null) continue;
    const file = join(layout.root, c.copy);
    if (!file.startsWith(layout.conflictCopies + sep)) continue; // only ever inside .teammem/conflicts/
    await rm(file, { force: true });
    for (let dir = dirname(file); dir.startsWith(layout.conflictCopies + sep); dir = dirname(dir)) {
      try {
        await rmdir(dir);
      } catch {
        break;
      }
    }
  }
  const ids = new Set(drop.map((c) => c.conflictId));
  all.splice(0, all.length, ...all.filter((c) => !ids.has(c.conflictId)));
}
