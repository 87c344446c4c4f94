/**
 * Brings a server version of a file into a working file that changed since its base (the design's
 * step 5: the client merges locally when it pulls a change of a file it changed). Both sides'
 * edits end up in the team folder, and the outcome is announced as an event:
 * - teammate's edit, local edit → the protocol's three-way merge under the path's policy: clean
 *   (or insertions kept both under `union`) → the merged text is written and later pushed as a
 *   fast-forward; overlapping → conflict markers are written (see `merge/markers.ts`), your side is
 *   also saved whole in `.teammem/conflicts/`, and the file is not pushed until the markers are gone;
 * - teammate's delete, local edit → the edit keeps the file (pushed as a new version);
 * - teammate's edit, local delete → the teammate's version is written back ("your delete was overridden").
 * In every case the base moves to the server version, so the next push is a fast-forward.
 */
import { randomUUID } from "node:crypto";
import { mkdir } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { eolStyle, mergeText, mergeWithoutBase, splitLines, type MergeRefusalCode, type MergeRegion, type WireFinding } from "@teammem/protocol";
import { readTeamFile, removeTeamFile, writeTeamFile } from "../local/team-files.js";
import { renderWithMarkers } from "../merge/markers.js";
import { writeFileAtomic } from "../state/atomic.js";
import { displayPath, displayRelative } from "../state/layout.js";
import { moveBase } from "./bases.js";
import { replaceGuard, type SyncContext } from "./context.js";

/** A server version of one entry. `content` null: a tombstone. */
export interface ServerVersion {
  readonly version: number;
  readonly sha256: string | null;
  readonly content: string | null;
  readonly author: string;
}

export interface LocalMerge {
  readonly path: string;
  /** The working file as read before the merge (`content` null: absent). */
  readonly local: { readonly content: string | null; readonly sha256: string | null };
  readonly server: ServerVersion;
  /**
   * The text both started from and its version (0: none, the path is new on both sides).
   * `purged`: that version's content was purged from the server's history (`text` is ""): the two
   * texts are merged without a base, every difference a conflict (`mergeWithoutBase`).
   */
  readonly base: { readonly text: string; readonly version: number; readonly purged?: boolean };
  /** The server's conflict record this merge settles locally (a push the server could not merge). */
  readonly conflictId?: string;
  /** Write markers even when the texts merge cleanly (the server refused its own merge: too large, or a credential). */
  readonly forceConflict?: boolean;
  /**
   * Why the server did not store its merge, when it was not overlapping lines (a conflict result's
   * `code` and `findings`): told in the conflict event instead of "changed the same lines".
   */
  readonly serverRefusal?: { readonly code: MergeRefusalCode; readonly findings?: readonly WireFinding[] };
  /** Your side to save in `.teammem/conflicts/` (default: the working file's content). */
  readonly mine?: string | null;
  /**
   * What the working file must hold for it to be replaced (sha256, null: absent; default `local`'s):
   * differs from `local` when your side comes from elsewhere (a file renamed on one side).
   */
  readonly expect?: string | null;
  /** The path whose base moves to the server version (default `path`; the old path when your side is a renamed file). */
  readonly basePath?: string;
}

/**
 * - `written`: the working file now holds the merge (or the teammate's version);
 * - `conflict`: it holds conflict markers;
 * - `kept`: the local file stays as it is (a teammate's delete under a local edit, or nothing to change);
 * - `changed`: the working file changed while merging; nothing was touched (the next sync merges again).
 * @throws UnsafeLocalPath when the file cannot be written (a symlink or folder in the way).
 */
export type LocalMergeOutcome = "written" | "conflict" | "kept" | "changed";

/** A folder name made only of safe characters, from a server-chosen id. */
function safeName(id: string): string {
  return id.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 128) || "conflict";
}

/** Saves `content` as your side of a conflict; returns its path relative to the memory folder. */
export async function saveConflictCopy(ctx: SyncContext, id: string, path: string, content: string): Promise<string> {
  const file = join(ctx.layout.conflictCopies, safeName(id), path);
  await mkdir(dirname(file), { recursive: true });
  await writeFileAtomic(file, content);
  return relative(ctx.layout.root, file);
}

/** Writes `content` (null: deletes) unless the working file no longer is `expectedSha` (null: absent). */
async function replaceIfUnchanged(ctx: SyncContext, path: string, expectedSha: string | null, content: string | null): Promise<boolean> {
  const now = await readTeamFile(ctx.layout, path);
  if (now.kind === "unsafe" || (now.kind === "file" ? now.sha256 : null) !== expectedSha) return false;
  // Checked again right before the rename: an edit written while merging is never overwritten.
  const guard = replaceGuard(ctx, expectedSha);
  return content === null ? await removeTeamFile(ctx.layout, path, guard) : await writeTeamFile(ctx.layout, path, content, guard);
}

/** Records the conflict for `status`, `resolve` and the push (replacing an earlier record of the same path and origin). */
function recordConflict(ctx: SyncContext, m: LocalMerge, copy: string | null, markers: boolean, basePurged?: number): void {
  const id = m.conflictId ?? null;
  ctx.reports.conflicts = ctx.reports.conflicts.filter((c) => !(c.path === m.path && (id === null ? c.conflictId === null : c.conflictId === id)));
  ctx.reports.conflicts.push({
    path: m.path,
    conflictId: id,
    headVersion: m.server.version,
    copy,
    at: new Date().toISOString(),
    author: m.server.author,
    markers,
    ...(basePurged !== undefined ? { basePurged } : {}),
  });
}

/** Merges `m.server` into the working file `m.path` (see the module comment). The caller saves state and reports. */
export async function mergeIntoWorkingFile(ctx: SyncContext, m: LocalMerge): Promise<LocalMergeOutcome> {
  const { path, local, server } = m;
  const shown = displayPath(path);
  const serverBase = { version: server.version, sha256: server.sha256 };
  const event = { path: shown, author: server.author, version: server.version };
  const basePath = m.basePath ?? path;
  const expect = m.expect === undefined ? local.sha256 : m.expect;

  if (server.content === null) {
    // A teammate deleted the file; the local edit (or creation) keeps it and goes up as a new version.
    const hadBase = (ctx.state.bases[basePath]?.sha256 ?? null) !== null;
    await moveBase(ctx, basePath, serverBase, null);
    if (hadBase) ctx.events.push({ type: "edit-kept", ...event });
    return "kept";
  }
  if (local.content === null) {
    if (!(await replaceIfUnchanged(ctx, path, expect, server.content))) return "changed";
    await moveBase(ctx, basePath, serverBase, server.content);
    ctx.events.push({ type: "delete-overridden", ...event });
    if (m.conflictId) recordConflict(ctx, m, null, false);
    return "written";
  }

  const merged = m.base.purged
    ? mergeWithoutBase(server.content, local.content)
    : mergeText({ base: m.base.text, server: server.content, local: local.content, policy: ctx.mergePolicy(path) });
  if (merged.clean && !m.forceConflict) {
    if ((merged.content !== local.content || expect !== local.sha256) && !(await replaceIfUnchanged(ctx, path, expect, merged.content))) return "changed";
    await moveBase(ctx, basePath, serverBase, server.content);
    if (merged.content === server.content) ctx.events.push({ type: "updated", ...event });
    else if (merged.content !== local.content) ctx.events.push({ type: "merged", ...event, union: merged.union });
    if (m.conflictId) recordConflict(ctx, m, null, false);
    return merged.content === local.content ? "kept" : "written";
  }

  const whole: MergeRegion[] = [{ conflict: true, base: splitLines(m.base.text), server: splitLines(server.content), local: splitLines(local.content) }];
  const regions = merged.clean ? whole : merged.regions;
  const eol = merged.clean ? (eolStyle(server.content) === "crlf" ? "\r\n" : "\n") : merged.eol;
  const text = renderWithMarkers(regions, eol, { baseVersion: m.base.version, author: server.author, version: server.version, ...(m.base.purged ? { basePurged: true } : {}) });
  const mine = m.mine === undefined ? local.content : m.mine;
  const copy = mine === null ? null : await saveConflictCopy(ctx, m.conflictId ?? `local-${randomUUID()}`, path, mine);
  if (!(await replaceIfUnchanged(ctx, path, expect, text))) return "changed";
  await moveBase(ctx, basePath, serverBase, server.content);
  recordConflict(ctx, m, copy, true, m.base.purged ? m.base.version : undefined);
  ctx.events.push({
    type: "conflict",
    ...event,
    copy: copy === null ? null : displayRelative(copy),
    ...(m.base.purged ? { basePurged: m.base.version } : {}),
    ...(m.serverRefusal && merged.clean ? { refusal: m.serverRefusal } : {}),
  });
  return "conflict";
}
