/**
 * Renames met by a pull:
 * - a teammate renamed a file (the old path's tombstone names the new one, `renamedTo`): a file
 *   unchanged here is moved ("team/a.md was renamed to team/docs/a.md by bob"); a file edited here
 *   follows it: once the pull has written the new path, your edit is merged into it there and the
 *   old path goes (see {@link followTeammateRenames});
 * - you renamed a file here (not sent yet) and a teammate edited its old path: their edit is merged
 *   into your new file instead of bringing the old path back ({@link followLocalRename}).
 */
import type { Change } from "@teammem/protocol";
import { readTeamFile, removeTeamFile } from "../local/team-files.js";
import { walkTeamScope, type ReadTeamFile, type TeamScope } from "../scope.js";
import { displayPath } from "../state/layout.js";
import { baseText, moveBase } from "./bases.js";
import { replaceGuard, type SyncContext } from "./context.js";
import { mergeIntoWorkingFile, type LocalMergeOutcome } from "./merge-local.js";
import { localRenameOf } from "./renames.js";

/** A teammate's rename of a file edited here, to finish once the pull has written the new path. */
export interface Follow {
  readonly from: string;
  readonly to: string;
  readonly author: string;
  /** Version of the old path's tombstone. */
  readonly version: number;
  readonly local: { readonly content: string; readonly sha256: string };
}

/** Announces a teammate's rename seen as the old path's tombstone; returns the event's index (to mark it followed). */
export function announceRename(
  ctx: SyncContext,
  change: Pick<Change, "path" | "version"> & { renamedTo?: string; author?: string },
  removedHere?: { readonly how: "deleted" } | { readonly how: "renamed"; readonly to: string },
): number {
  ctx.events.push({
    type: "renamed",
    from: displayPath(change.path),
    to: displayPath(change.renamedTo!),
    author: change.author ?? "",
    version: change.version,
    followed: false,
    ...(removedHere ? { removedHere: removedHere.how } : {}),
    ...(removedHere?.how === "renamed" ? { renamedHereTo: displayPath(removedHere.to) } : {}),
  });
  return ctx.events.length - 1;
}

/**
 * How the old path of a teammate's rename left this folder before the pull (it is absent here and
 * had a base): renamed here to a new file holding (nearly) its base text, else deleted.
 */
export async function removedHere(ctx: SyncContext, path: string, scope: () => Promise<TeamScope>): Promise<{ how: "deleted" } | { how: "renamed"; to: string }> {
  const text = await baseText(ctx, path);
  const to = text === undefined ? null : localRenameOf(ctx, await scope(), path, text);
  return to === null ? { how: "deleted" } : { how: "renamed", to };
}

/** Whether a creation was already announced as the new path of a rename in this run. */
export function announcedAsRename(ctx: SyncContext, change: { path: string; renamedFrom?: string }): boolean {
  if (!change.renamedFrom) return false;
  const [from, to] = [displayPath(change.renamedFrom), displayPath(change.path)];
  return ctx.events.some((e) => e.type === "renamed" && e.from === from && e.to === to);
}

/**
 * Merges each followed local edit into the new path written by this pull (base: the old path's
 * base; server: the new path as written), removes the old file and moves its base to the
 * tombstone. When the new path is not here unchanged (not written, or changed locally), the edit
 * stays at the old path as an edit kept over a delete (sent as a new version there).
 * @param dropQueued drops the outbox operations of a path (their content is in the merged file).
 * @returns the display paths merged into, and those left with conflict markers.
 */
export async function followTeammateRenames(
  ctx: SyncContext,
  follows: readonly (Follow & { readonly event: number })[],
  dropQueued: (path: string) => Promise<void>,
): Promise<{ merged: string[]; conflicts: string[] }> {
  const done = { merged: [] as string[], conflicts: [] as string[] };
  for (const f of follows) {
    const target = await readTeamFile(ctx.layout, f.to);
    const targetBase = ctx.state.bases[f.to];
    const fromBase = ctx.state.bases[f.from];
    const text = await baseText(ctx, f.from);
    let outcome: LocalMergeOutcome = "changed";
    if (target.kind === "file" && targetBase && targetBase.sha256 === target.sha256 && text !== undefined) {
      outcome = await mergeIntoWorkingFile(ctx, {
        path: f.to,
        local: f.local,
        expect: target.sha256,
        server: { version: targetBase.version, sha256: targetBase.sha256, content: target.content, author: f.author },
        base: { text, version: fromBase?.version ?? 0 },
      });
    }
    if (outcome !== "changed") {
      const old = await readTeamFile(ctx.layout, f.from);
      if (old.kind === "file" && old.sha256 === f.local.sha256) await removeTeamFile(ctx.layout, f.from, replaceGuard(ctx, f.local.sha256));
      const event = ctx.events[f.event];
      if (event?.type === "renamed") ctx.events[f.event] = { ...event, followed: true };
      (outcome === "conflict" ? done.conflicts : done.merged).push(displayPath(f.to));
      await dropQueued(f.from);
      await dropQueued(f.to);
    } else {
      ctx.events.push({ type: "edit-kept", path: displayPath(f.from), author: f.author, version: f.version });
    }
    await moveBase(ctx, f.from, { version: f.version, sha256: null }, null);
  }
  return done;
}

/**
 * A teammate's edit (`change`) of `change.path`, which was deleted here: when the file was renamed
 * here (a new file pairs with its base text), merges the edit into the new file and moves the old
 * path's base to the teammate's version, so the rename is sent from it.
 * @returns the merge's outcome, or null when the delete is no rename (the caller writes the edit back).
 */
export async function followLocalRename(ctx: SyncContext, change: Change | (Pick<Change, "path" | "version" | "sha256" | "content"> & { author?: string }), scope: () => Promise<TeamScope<ReadTeamFile>>): Promise<{ to: string; outcome: LocalMergeOutcome } | null> {
  if (change.content === null) return null;
  const text = await baseText(ctx, change.path);
  if (!text) return null;
  const to = localRenameOf(ctx, await scope(), change.path, text);
  if (to === null) return null;
  const file = (await scope()).files.get(to)!;
  const outcome = await mergeIntoWorkingFile(ctx, {
    path: to,
    local: { content: file.content, sha256: file.sha256 },
    server: { version: change.version, sha256: change.sha256, content: change.content, author: change.author ?? "" },
    base: { text, version: ctx.state.bases[change.path]?.version ?? 0 },
    basePath: change.path,
  });
  return { to, outcome };
}

/** A lazily walked team scope (walked at most once per pull). */
export function lazyScope(ctx: SyncContext): () => Promise<TeamScope<ReadTeamFile>> {
  let walked: Promise<TeamScope<ReadTeamFile>> | undefined;
  return () => (walked ??= walkTeamScope(ctx.layout));
}
