/**
 * Guards against deleting a team's entries by accident: a `team/` folder that was deleted, moved,
 * not mounted or replaced by a symlink looks exactly like "every file was deleted". A sync refuses
 * (exit 1, nothing sent) when
 * - `team/` is not a real folder while the client tracks live entries, or
 * - it would queue more than {@link MASS_DELETE_MIN_COUNT} deletes that are also more than
 *   {@link MASS_DELETE_MIN_SHARE} of the tracked live entries,
 * unless the user passed `--allow-mass-delete`.
 */
import { ClientError } from "../errors.js";
import type { TeamRoot } from "../scope.js";
import { displayPath, type Layout } from "../state/layout.js";
import type { SyncState } from "../state/sync-state.js";

/** A sync may queue at most this many deletes without `--allow-mass-delete`, whatever the share... */
const MASS_DELETE_MIN_COUNT = 10;
/** ...or any number up to this share of the tracked live entries. */
const MASS_DELETE_MIN_SHARE = 0.5;

const HOW_TO_PROCEED = "restore the folder or files, or run `teammem sync --allow-mass-delete` if you really mean to delete them for the whole team";

/** Refusal of a sync that would delete (almost) everything: exit 1, nothing was sent. */
export class MassDeleteRefused extends ClientError {
  constructor(message: string) {
    super(message, 1, "mass_delete_refused");
  }
}

/** Entries the client last saw alive on the server (bases that are not tombstones). */
export function liveEntryCount(state: SyncState): number {
  return Object.values(state.bases).filter((b) => b.sha256 !== null).length;
}

/** @throws MassDeleteRefused when `team/` is not a real folder while entries are tracked (and deleting is not allowed). */
export function checkTeamRoot(layout: Layout, root: TeamRoot, state: SyncState, allow: boolean): void {
  if (root === "folder" || allow) return;
  const live = liveEntryCount(state);
  if (live === 0) return;
  const what = root === "missing" ? "is missing" : root === "symlink" ? "is a symlink (not followed)" : "is not a folder";
  throw new MassDeleteRefused(
    `${layout.team} ${what}, but this folder tracks ${live} team entr${live === 1 ? "y" : "ies"}: syncing now would delete ` +
      `${live === 1 ? "it" : "all of them"} from the server for the whole team. Nothing was synced; ${HOW_TO_PROCEED}`,
  );
}

/** Whether queuing `deleteCount` deletes exceeds the thresholds: a sync without `--allow-mass-delete` refuses them. */
export function isMassDelete(deleteCount: number, state: SyncState): boolean {
  return deleteCount > MASS_DELETE_MIN_COUNT && deleteCount > liveEntryCount(state) * MASS_DELETE_MIN_SHARE;
}

/** @throws MassDeleteRefused when `deletes` (entry paths) exceed the thresholds (and deleting is not allowed). */
export function checkMassDelete(deletes: readonly string[], state: SyncState, allow: boolean): void {
  if (allow || !isMassDelete(deletes.length, state)) return;
  const live = liveEntryCount(state);
  const sample = deletes.slice(0, 3).map(displayPath).join(", ");
  throw new MassDeleteRefused(
    `this sync would delete ${deletes.length} of the ${live} team entries (${sample}${deletes.length > 3 ? ", ..." : ""}) ` +
      `from the server for the whole team. Nothing was sent; ${HOW_TO_PROCEED}`,
  );
}
