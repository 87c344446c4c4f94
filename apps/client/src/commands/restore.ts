/**
 * `teammem restore PATH --version N [--json]`: brings back version N of a team file as a new
 * version, through the server's restore route (`POST /restore`, kind restore, idempotent by opId;
 * restoring a tombstone deletes the entry), and writes the restored content into the working
 * file, whose base becomes the new version. Teammates get it at their next sync like any edit.
 *
 * Refused, with nothing changed anywhere:
 * - exit 2: a private path, a path outside the folder, a bad or unknown version (entry-args.ts);
 * - exit 1 `local_changes`: the working file differs from its base (or an operation for it is
 *   queued): restoring would overwrite an edit that is on no server; sync (or undo it) first;
 * - exit 1 `secret_detected`: version N's content (or the path) holds a credential under today's
 *   rules: it is not written back into the team scope (the server's copy stays in history).
 */
import { randomUUID } from "node:crypto";
import { ClientError } from "../errors.js";
import { createApi } from "../http/api.js";
import { readTeamFile, removeTeamFile, writeTeamFile } from "../local/team-files.js";
import { storeBaseContent } from "../state/base-store.js";
import { displayPath } from "../state/layout.js";
import { COMMAND_LOCK_WAIT_MS, acquireLock } from "../state/lock.js";
import { listOutbox } from "../state/outbox.js";
import { loadScanPolicy, scanKeyOf } from "../state/scan-policy.js";
import { advanceBase, loadSyncState, saveSyncState } from "../state/sync-state.js";
import { renameSource } from "../sync/renames.js";
import { scanTeamFile } from "../sync/scan-team-file.js";
import { openFolder, layoutFor, requireToken, type CommandContext, type CommonCommand, type OptionsOf } from "./common.js";
import { checkSpelling, missingOnServer, teamFileArg, versionArg, notRegularFile } from "./entry-args.js";

export const name = "restore";
export const summary = "bring back an old version of a team file as a new version (server and working file)";

function define(command: CommonCommand) {
  return command
    .argument("<path>", "the team file, e.g. team/build.md (it may be deleted)")
    .requiredOption("--version <version>", "the version to restore (teammem history PATH lists them)")
    .option("--json", "print the result as JSON");
}

export function register(command: CommonCommand, ctx: CommandContext, exit: (code: number) => void): void {
  define(command).action(async (path, options) => exit(await run(path, options, ctx)));
}

async function run(rawPath: string, options: OptionsOf<typeof define>, ctx: CommandContext): Promise<number> {
  const layout = await layoutFor(options, ctx);
  const config = await openFolder(layout, ctx);
  const path = teamFileArg(layout, rawPath);
  await checkSpelling(layout, path);
  const version = versionArg(options.version, "--version");
  const token = requireToken(options, ctx, config);
  const api = createApi({ server: config.server, namespace: config.namespace, token });
  const shown = displayPath(path);

  // A running `teammem watch` holds the lock only while it syncs: wait for that.
  const release = await acquireLock(layout, { waitMs: COMMAND_LOCK_WAIT_MS, warn: (line) => ctx.io.stderr(`teammem: ${line}\n`) });
  try {
    const state = await loadSyncState(layout);
    const base = state.bases[path];
    const file = await readTeamFile(layout, path);
    if (file.kind === "unsafe") throw notRegularFile(path, file) ?? new ClientError(`cannot restore ${shown}: the local path is unsafe (${file.reason})`);
    const localSha = file.kind === "file" ? file.sha256 : null;
    const queued = (await listOutbox(layout)).some(({ entry: { operation } }) => operation.path === path || renameSource(operation) === path);
    if (queued || localSha !== (base?.sha256 ?? null))
      throw new ClientError(
        `not restored: ${shown} has local changes that are not on the server yet; run teammem sync first ` +
          `(teammem diff ${shown} shows them), then restore`,
        1,
        "local_changes",
      );

    const target = await api.version(path, version).catch((err: unknown) => {
      throw missingOnServer(err, path, version);
    });
    if (target.content !== null) {
      const key = scanKeyOf(config, await loadScanPolicy(layout));
      const { findings, pathFindings } = scanTeamFile(path, target.content, key.fingerprintKey, key.allowFingerprints);
      const found = [...pathFindings.map((f) => `${shown}: path holds ${f.ruleId}`), ...findings.map((f) => `${shown}:${f.line} ${f.ruleId}`)];
      if (found.length > 0)
        throw new ClientError(`not restored: version ${version} holds a credential (${found.join(", ")}); it stays in the server's history only`, 1, "secret_detected");
    }

    const restored = await api.restore({ opId: randomUUID(), path, version, clientId: config.clientId });
    // Replaced only if the file still is what was checked above: an edit written meanwhile (an
    // agent) stays, and the base stays behind so the next sync merges the restored version into it.
    const guard = { expectSha256: localSha };
    if (target.content !== null) await storeBaseContent(layout, target.content);
    const replaced = target.content === null ? await removeTeamFile(layout, path, guard) : await writeTeamFile(layout, path, target.content, guard);
    if (!replaced) {
      ctx.io.stderr(`${shown} changed while the restored version was being written: your edit is kept; teammem sync merges version ${restored.version} into it\n`);
      return 0;
    }
    advanceBase(state, path, { version: restored.version, sha256: restored.deleted ? null : restored.sha256 });
    await saveSyncState(layout, state);

    if (options.json) {
      const json = { ok: true, path: shown, restoredFrom: version, version: restored.version, deleted: restored.deleted, sha256: restored.sha256 };
      ctx.io.stdout(JSON.stringify(json, null, 2) + "\n");
    } else
      ctx.io.stdout(
        restored.deleted
          ? `restored ${shown} to version ${version}, a delete: the entry is deleted as version ${restored.version} and the working file removed\n`
          : `restored ${shown} to the content of version ${version} as version ${restored.version}; the working file holds it\n`,
      );
    return 0;
  } finally {
    await release();
  }
}
