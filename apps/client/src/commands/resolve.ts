/**
 * `teammem resolve <path> [--take file|mine|theirs]`: settles the conflict of one team file, both
 * kinds: the server's open conflict record(s) (a push it could not merge) and conflict markers
 * written into the file by a merge at pull. The resolution is
 * - `file` (default): the file as it is now in team/ (absent: the entry is deleted); refused
 *   while conflict markers are still in it;
 * - `mine`: your side, saved whole in `.teammem/conflicts/` (or the server record's content);
 * - `theirs`: the server's current version.
 * With server records, the resolution is written on the server as the file's new head version
 * (scanned first like every upload); without, the next sync sends it. The local file ends up equal
 * to the resolution, the local conflict copies are removed and `status` no longer lists the
 * conflict. `mine` is written over the newest head even when a teammate wrote the file
 * again after the conflict (their version stays in the history; the summary names it). Exit 1 when
 * the server refuses (for `file`, a newer version on the server: sync merges it in, check, resolve again).
 */
import { randomUUID } from "node:crypto";
import { NotRegularFile, readRegularFile } from "../local/read-regular.js";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { InvalidArgumentError } from "@commander-js/extra-typings";
import { checkEntryPath, type ConflictRecord } from "@teammem/protocol";
import { scan } from "@teammem/scanner";
import { ClientError, NetworkError, ServerError, UsageError } from "../errors.js";
import { createApi, type Api } from "../http/api.js";
import { readTeamFile, removeTeamFile, writeTeamFile } from "../local/team-files.js";
import { teamPathOf } from "../local/team-path.js";
import { checkSpelling, notRegularFile } from "./entry-args.js";
import { firstMarkerLine } from "../merge/markers.js";
import { storeBaseContent } from "../state/base-store.js";
import { displayPath, displayRelative, type Layout } from "../state/layout.js";
import { COMMAND_LOCK_WAIT_MS, acquireLock } from "../state/lock.js";
import { loadReports, saveConflicts, type Conflict } from "../state/reports.js";
import { advanceBase, loadSyncState, saveSyncState } from "../state/sync-state.js";
import { removeConflictCopy } from "../sync/settle-conflicts.js";
import { openFolder, layoutFor, requireToken, type CommandContext, type CommonCommand, type OptionsOf } from "./common.js";

export const name = "resolve";
export const summary = "settle the conflict on a team file: server records and conflict markers (default: the file as it is now wins)";

const SIDES = ["file", "mine", "theirs"] as const;
/** Attempts at writing `--take mine` over a head that moves meanwhile (a teammate pushing again). */
const MAX_HEAD_ATTEMPTS = 3;
type Side = (typeof SIDES)[number];

function parseSide(raw: string): Side {
  if (!(SIDES as readonly string[]).includes(raw)) throw new InvalidArgumentError(`--take must be one of ${SIDES.join(", ")} (got "${raw}")`);
  return raw as Side;
}

function define(command: CommonCommand) {
  return command
    .argument("<path>", "the team file, e.g. team/style.md")
    .option("--take <side>", "file: the file as it is now; mine: your saved conflict copy; theirs: the server's version", parseSide, "file")
    .option("--json", "print the result as JSON");
}

export function register(command: CommonCommand, ctx: CommandContext, exit: (code: number) => void): void {
  define(command).action(async (path, options) => exit(await run(path, options, ctx)));
}

/**
 * The entry path of `raw`: a path inside team/ (resolved against the cwd), `team/<entry>`, or the entry path itself.
 * @throws UsageError invalid_path when it is none of these (`../x`, a reserved segment); an absolute
 *   path outside team/: private_path (in the memory folder) or outside_folder.
 */
function entryPathOf(raw: string, layout: Layout, cwd: string): string {
  if (isAbsolute(raw)) {
    // As every command taking a file path names these: private_path, outside_folder.
    const where = teamPathOf(layout, raw);
    if (where.scope === "private") throw new UsageError(`${raw} is private (outside team/): it never leaves this machine and has no conflict to resolve`, "private_path");
    if (where.scope === "outside") throw new UsageError(`${raw} is outside the memory folder ${layout.root}`, "outside_folder");
  }
  const abs = resolve(cwd, raw);
  let entry = abs.startsWith(layout.team + sep) ? relative(layout.team, abs).split(sep).join("/") : raw.replace(/^team\//, "");
  entry = entry.replace(/^\.\//, "");
  const check = checkEntryPath(entry);
  if (!check.ok) throw new UsageError(`${raw} is not a team file path (${check.message}); give it as team/<file>`, "invalid_path");
  return check.path;
}

/** The server's open conflict records of `path`; none when offline and every local conflict of the path is local only. */
async function openRecords(api: Api, path: string, local: readonly Conflict[]): Promise<ConflictRecord[]> {
  try {
    return (await api.openConflicts()).conflicts.filter((c) => c.path === path);
  } catch (err) {
    if (err instanceof NetworkError && local.length > 0 && local.every((c) => c.conflictId === null)) return [];
    throw err;
  }
}

async function run(rawPath: string, options: OptionsOf<typeof define>, ctx: CommandContext): Promise<number> {
  const take = options.take;
  const layout = await layoutFor(options, ctx);
  const config = await openFolder(layout, ctx);
  const token = requireToken(options, ctx, config);
  const path = entryPathOf(rawPath, layout, ctx.cwd);
  await checkSpelling(layout, path);
  const shown = displayPath(path);
  const api = createApi({ server: config.server, namespace: config.namespace, token });

  // A running `teammem watch` holds the lock only while it syncs: wait for that.
  const release = await acquireLock(layout, { waitMs: COMMAND_LOCK_WAIT_MS, warn: (line) => ctx.io.stderr(`teammem: ${line}\n`) });
  try {
    const state = await loadSyncState(layout);
    const reports = await loadReports(layout);
    const local = reports.conflicts.filter((c) => c.path === path);
    const records = await openRecords(api, path, local);
    if (records.length === 0 && !local.some((c) => c.conflictId === null)) {
      if (local.length === 0) throw new ClientError(`no open conflict for ${shown} (teammem status lists the conflicts)`);
      await dropLocal(layout, reports.conflicts, local);
      await saveConflicts(layout, reports.conflicts);
      if (options.json) ctx.io.stdout(JSON.stringify({ ok: true, path: shown, take, records: 0, alreadyResolved: true, version: null, deleted: null }, null, 2) + "\n");
      else ctx.io.stdout(`no open conflict for ${shown} on the server (already resolved); removed the local conflict copy\n`);
      return 0;
    }

    // What the file holds now: `--take mine/theirs` replaces it only if it still does (an edit written meanwhile stays).
    const before = await readTeamFile(layout, path);
    const beforeSha = before.kind === "file" ? before.sha256 : null;
    const content = await resolution(take, layout, path, local, records, api, config.clientId);
    if (content !== null) {
      const findings = scan(content, { fingerprintKey: config.fingerprintKey, allowMarker: false });
      if (findings.length > 0)
        throw new ClientError(
          `not resolved: the resolution holds a credential (${findings.map((f) => `${shown}:${f.line} ${f.ruleId}`).join(", ")}); remove it first`,
        );
    }
    let baseVersion = take === "theirs" ? (await api.entry(path)).version : (state.bases[path]?.version ?? 0);
    let written: { version: number; sha256: string | null } | undefined;
    // Versions a teammate wrote after this folder's base that `--take mine` wrote over.
    const overwritten: number[] = [];
    for (const record of records) {
      for (let attempt = 1; ; attempt++) {
        try {
          const body = content === null ? { opId: randomUUID(), baseVersion, delete: true as const } : { opId: randomUUID(), baseVersion, content };
          const result = await api.resolveConflict(record.id, { ...body, clientId: config.clientId });
          written = { version: result.version, sha256: result.deleted ? null : result.sha256 };
          baseVersion = result.version;
          break;
        } catch (err) {
          if (err instanceof ServerError && err.code === "already_exists") break; // resolved meanwhile
          if (!(err instanceof ServerError && err.code === "version_conflict")) throw err;
          // `mine` is an explicit choice of the whole content: it is written over the newest head (a
          // teammate's later version stays in the history). `file` is the file as it is: the
          // teammate's version is merged into it by a sync first; `theirs` reads the head again.
          if (take === "mine" && attempt < MAX_HEAD_ATTEMPTS) {
            const head = await api.entry(path);
            if (head.version > baseVersion) overwritten.push(head.version);
            baseVersion = head.version;
            continue;
          }
          throw new ClientError(
            `not resolved: the server has a newer version of ${shown} (v${String(err.details?.["currentVersion"] ?? "?")}) than this folder's (v${baseVersion}); ` +
              (take === "file"
                ? "run teammem sync (it merges that version into the file), check the file, then resolve again"
                : take === "theirs"
                  ? "resolve again to take that one"
                  : "it keeps moving (a teammate is writing it); try again"),
          );
        }
      }
    }
    let kept = false;
    if (take !== "file") {
      const guard = { expectSha256: beforeSha };
      kept = !(content === null ? await removeTeamFile(layout, path, guard) : await writeTeamFile(layout, path, content, guard));
      // The base stays behind: the next sync merges the resolution into the edit.
      if (kept) ctx.io.stderr(`${shown} changed while the resolution was being written: your edit is kept; teammem sync merges the resolved version into it\n`);
    }
    if (written && !kept) {
      if (content !== null) await storeBaseContent(layout, content);
      advanceBase(state, path, written);
    }
    await saveSyncState(layout, state);
    await dropLocal(layout, reports.conflicts, local);
    await saveConflicts(layout, reports.conflicts);
    const how = take === "file" ? "the file as it is" : take;
    if (options.json) {
      const json = { ok: true, path: shown, take, records: records.length, alreadyResolved: false, version: written?.version ?? null, deleted: written ? written.sha256 === null : null,
        overwrote: overwritten.length > 0 ? Math.max(...overwritten) : null };
      ctx.io.stdout(JSON.stringify(json, null, 2) + "\n");
    } else
      ctx.io.stdout(
        records.length > 0
          ? `resolved ${records.length} conflict${records.length === 1 ? "" : "s"} on ${shown} with ${how}` +
              (written ? `: server version ${written.version}${written.sha256 === null ? " (deleted)" : ""}` : "") +
              (overwritten.length > 0 ? ` (written over a teammate's newer v${Math.max(...overwritten)}, kept in the history: teammem history ${shown})` : "") +
              "\n"
          : `resolved the conflict on ${shown} with ${how}; the next sync sends it\n`,
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
  api: Api,
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
        // Never a blocking open: the copy may have been replaced by a FIFO (try17 M3).
        return new TextDecoder().decode(await readRegularFile(join(layout.root, copy.copy)));
      } catch (err) {
        if (err instanceof NotRegularFile) throw new UsageError(`${displayRelative(copy.copy)}: not a regular file (the conflict copy); resolve with --take theirs or --take file`, "not_regular_file");
        if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
      }
    }
    const mine = [...records].reverse().find((r) => r.clientId === clientId) ?? records[records.length - 1];
    if (!mine) throw new ClientError(`not resolved: your side of the conflict on ${displayPath(path)} is no longer saved; edit the file and resolve with --take file`);
    return mine.deleted ? null : mine.content;
  }
  const file = await readTeamFile(layout, path);
  if (file.kind === "unsafe") throw notRegularFile(path, file) ?? new ClientError(`cannot read ${displayPath(path)}: ${file.reason}`);
  const marker = file.kind === "file" ? firstMarkerLine(file.content) : null;
  if (marker !== null)
    throw new ClientError(
      `not resolved: ${displayPath(path)} still has conflict markers (line ${marker}); keep what you want and remove the <<<<<<< ||||||| ======= >>>>>>> lines, ` +
        "or resolve with --take mine or --take theirs",
    );
  return file.kind === "file" ? file.content : null;
}

/** Removes the local conflict copies of `drop` and their records from `all`. */
async function dropLocal(layout: Layout, all: Conflict[], drop: readonly Conflict[]): Promise<void> {
  for (const c of drop) await removeConflictCopy(layout, c);
  all.splice(0, all.length, ...all.filter((c) => !drop.includes(c)));
}
