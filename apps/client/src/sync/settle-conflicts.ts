/**
 * When a conflict is over. A conflict whose markers are in the working file (see
 * `merge/markers.ts`) is settled once no marker line is left there (edited by hand, or by
 * `teammem resolve`):
 * - a conflict this client found at pull (no server record) is then dropped, and the file is
 *   pushed like any edit;
 * - a conflict the server recorded (a push it could not merge) waits until the settled file is on
 *   the server (the file equals its base), then its record is closed there (`POST
 *   .../conflicts/:id/resolve` with that content: no new version, the record marked resolved).
 * Conflicts recorded by older clients (no `markers` field) stay listed until their copy in
 * `.teammem/conflicts/` is deleted or `teammem resolve` runs.
 */
import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { rm, rmdir } from "node:fs/promises";
import { dirname, join, sep } from "node:path";
import { NetworkError, ServerError } from "../errors.js";
import { readTeamFile } from "../local/team-files.js";
import { firstMarkerLine } from "../merge/markers.js";
import { displayPath, type Layout } from "../state/layout.js";
import { saveConflicts, type Conflict } from "../state/reports.js";
import type { SyncContext } from "./context.js";

/** Markers left in the working file of `conflict`: the line of the first one, or null (none, or the file is gone). */
export async function markersLeftIn(layout: Layout, conflict: Conflict): Promise<number | null> {
  if (conflict.markers !== true) return null;
  const file = await readTeamFile(layout, conflict.path);
  return file.kind === "file" ? firstMarkerLine(file.content) : null;
}

/** Removes the local copy of `conflict` (and its folders when empty); only ever inside `.teammem/conflicts/`. */
export async function removeConflictCopy(layout: Layout, conflict: Conflict): Promise<void> {
  if (conflict.copy === null) return;
  const file = join(layout.root, conflict.copy);
  if (!file.startsWith(layout.conflictCopies + sep)) return;
  await rm(file, { force: true });
  for (let dir = dirname(file); dir.startsWith(layout.conflictCopies + sep); dir = dirname(dir)) {
    try {
      await rmdir(dir);
    } catch {
      break;
    }
  }
}

/** At the start of a sync: drops the conflicts settled here that have no server record (and legacy ones whose copy is gone). Saves the list. */
export async function dropSettledConflicts(ctx: SyncContext): Promise<void> {
  const kept: Conflict[] = [];
  for (const c of ctx.reports.conflicts) {
    if (c.markers === undefined) {
      if (c.copy !== null && existsSync(join(ctx.layout.root, c.copy))) kept.push(c);
    } else if (c.conflictId !== null || (await markersLeftIn(ctx.layout, c)) !== null) kept.push(c);
    else await removeConflictCopy(ctx.layout, c);
  }
  ctx.reports.conflicts = kept;
  await saveConflicts(ctx.layout, kept);
}

/**
 * After a push: closes on the server each recorded conflict whose working file is settled and
 * synced (see the module comment), announcing it. A failure leaves the record for the next sync.
 */
export async function closeSettledConflicts(ctx: SyncContext): Promise<void> {
  let changed = false;
  for (const c of [...ctx.reports.conflicts]) {
    if (c.conflictId === null || c.markers === undefined || (ctx.only && !ctx.only(c.path))) continue;
    const file = await readTeamFile(ctx.layout, c.path);
    if (file.kind === "unsafe" || (file.kind === "file" && firstMarkerLine(file.content) !== null)) continue;
    const base = ctx.state.bases[c.path];
    if (!base || base.sha256 !== (file.kind === "file" ? file.sha256 : null)) continue; // not on the server yet
    const body = file.kind === "file" ? { content: file.content } : { delete: true as const };
    try {
      const closed = await ctx.api.resolveConflict(c.conflictId, { opId: randomUUID(), baseVersion: base.version, clientId: ctx.config.clientId, ...body });
      ctx.events.push({ type: "conflict-closed", path: displayPath(c.path), version: closed.version });
    } catch (err) {
      if (err instanceof NetworkError) break;
      if (!(err instanceof ServerError)) throw err;
      // Resolved meanwhile (by a teammate) or gone: nothing left to close. Otherwise try again next sync.
      if (err.code !== "already_exists" && err.code !== "not_found") continue;
    }
    ctx.reports.conflicts = ctx.reports.conflicts.filter((x) => x !== c);
    await removeConflictCopy(ctx.layout, c);
    changed = true;
  }
  if (changed) await saveConflicts(ctx.layout, ctx.reports.conflicts);
}
