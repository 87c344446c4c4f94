/**
 * The lists `status` shows besides the outbox, each kept in its own JSON file:
 * - held back: team files the scanner found a credential in (position and rule, never the value);
 * - rejected: operations the server refused, with its code;
 * - conflicts: edits the server kept as conflict records, with where our side was saved locally;
 * - not written: pulled versions that could not be written to disk (a folder or symlink in the way);
 * - newer on server: pulled versions not applied because the local file was changed since its base
 *   (kept for the push to merge); applied later if the local edit is reverted, dropped once the base
 *   reaches that version.
 * Paths are entry paths (relative to `team/`).
 */
import { z } from "zod";
import { ERROR_CODES, Sha256, Version, WireFinding } from "@teammem/protocol";
import { StateError } from "../errors.js";
import { readJson, saveJsonIfChanged } from "./atomic.js";
import type { Layout } from "./layout.js";

const HeldFinding = z.object({
  ruleId: z.string(),
  label: z.string(),
  line: z.number().int().positive(),
  column: z.number().int().positive(),
  /** Keyed hash of the value (key local to this installation); never the value. */
  fingerprint: z.string(),
});
type HeldFinding = z.infer<typeof HeldFinding>;

/** A credential found in the file's path (relative to team/) rather than its content. */
const PathFinding = z.object({
  ruleId: z.string(),
  label: z.string(),
  /** 1-based column in the entry path. */
  column: z.number().int().positive(),
  fingerprint: z.string(),
});
type PathFinding = z.infer<typeof PathFinding>;

export const HeldBack = z.object({
  /** Entry path as on disk (this file is local and private); shown and reported only redacted. */
  path: z.string(),
  sha256: Sha256,
  /** Findings in the content (may be empty when the path holds one). */
  findings: z.array(HeldFinding),
  /** Findings in the path itself. */
  pathFindings: z.array(PathFinding).optional(),
  /** Whether the block report for this sha256 and these fingerprints (this fingerprint key) reached the server. */
  reported: z.boolean(),
});
export type HeldBack = z.infer<typeof HeldBack>;

export const Rejected = z.object({
  path: z.string(),
  opId: z.string(),
  /** Content sha256 that was refused (null: a delete). Not resent until the file differs from it. */
  sha256: Sha256.nullable(),
  code: z.enum(ERROR_CODES),
  message: z.string(),
  retry: z.boolean(),
  details: z.record(z.string(), z.unknown()).optional(),
  findings: z.array(WireFinding).optional(),
  /** Refused by this client before sending, with the server's code and message (over the server's limits): never sent. */
  local: z.boolean().optional(),
});
export type Rejected = z.infer<typeof Rejected>;

export const Conflict = z.object({
  path: z.string(),
  /** The server's conflict record (a push it could not merge); null for a conflict found by this client's own merge at pull. */
  conflictId: z.string().nullable(),
  headVersion: Version,
  /** Our side of the conflict, relative to the memory folder (inside `.teammem/conflicts/`). */
  copy: z.string().nullable(),
  at: z.string(),
  /** Author of the server version (`headVersion`). */
  author: z.string().optional(),
  /**
   * Whether conflict markers were written into the working file: it is not pushed while they are
   * there. Absent for conflicts recorded by older clients (listed until their copy is deleted).
   */
  markers: z.boolean().optional(),
  /** The version both sides started from, when it was purged from the server's history (merged without a base). */
  basePurged: z.number().int().positive().optional(),
});
export type Conflict = z.infer<typeof Conflict>;

/** A server version that could not be written locally (a folder or symlink in the way); retried every sync. */
const NotWritten = z.object({
  path: z.string(),
  version: Version,
  reason: z.string(),
  at: z.string(),
});
type NotWritten = z.infer<typeof NotWritten>;

/**
 * A server version of `path` that was not applied here because the local file differed from its
 * base when it arrived. Dropped once the base reaches `version` (the push merged it, or the version
 * was written after the local edit was reverted).
 */
const NewerOnServer = z.object({
  path: z.string(),
  version: Version,
  /** sha256 of that version (null: a tombstone). */
  sha256: Sha256.nullable(),
  at: z.string(),
});
type NewerOnServer = z.infer<typeof NewerOnServer>;

export interface Reports {
  heldBack: HeldBack[];
  rejected: Rejected[];
  conflicts: Conflict[];
  notWritten: NotWritten[];
  newerOnServer: NewerOnServer[];
}

const list = <T extends z.ZodType>(item: T) => z.object({ entries: z.array(item) });

/** The shapes of the report files, for the recovery of damaged ones (state/recover.ts). */
export const HeldBackFile = list(HeldBack);
export const RejectedFile = list(Rejected);
export const NotWrittenFile = list(NotWritten);
export const NewerOnServerFile = list(NewerOnServer);

/**
 * What to do about a damaged conflicts.json: it cannot be rebuilt (it is what keeps a file with
 * conflict markers from being sent), so it is never moved or deleted by teammem.
 */
const CONFLICTS_HINT =
  "it records the open conflicts (a file with conflict markers is not sent while it lists it), which teammem cannot rebuild, so it was left as it is: " +
  "repair the JSON, or settle the conflicts (remove the markers from the team files; your sides are in .teammem/conflicts/) and then move it aside";

/**
 * The five reports of the last syncs (held back, rejected, conflicts, not written, newer on the
 * server); a report whose file does not exist yet is [].
 * @param damagedAsEmpty read a damaged rebuildable report (all but conflicts.json) as [] (a dry
 *   run, which warned about it and moves nothing; see state/recover.ts).
 * @throws StateError when one of the files is not JSON or not of its shape.
 */
export async function loadReports(layout: Layout, damagedAsEmpty = false): Promise<Reports> {
  const rebuildable = <S extends z.ZodType>(file: string, schema: S) =>
    readJson(file, schema).catch((err: unknown) => (damagedAsEmpty && err instanceof StateError ? undefined : Promise.reject(err)));
  const [heldBack, rejected, conflicts, notWritten, newerOnServer] = await Promise.all([
    rebuildable(layout.heldBack, HeldBackFile),
    rebuildable(layout.rejected, RejectedFile),
    readJson(layout.conflicts, list(Conflict), CONFLICTS_HINT),
    rebuildable(layout.notWritten, NotWrittenFile),
    rebuildable(layout.newerOnServer, NewerOnServerFile),
  ]);
  return {
    heldBack: heldBack?.entries ?? [],
    rejected: rejected?.entries ?? [],
    conflicts: conflicts?.entries ?? [],
    notWritten: notWritten?.entries ?? [],
    newerOnServer: newerOnServer?.entries ?? [],
  };
}

// Each save replaces its report with `entries`, written atomically (not rewritten when it holds them already).
export async function saveHeldBack(layout: Layout, entries: HeldBack[]): Promise<void> {
  await saveJsonIfChanged(layout.heldBack, { entries });
}
export async function saveRejected(layout: Layout, entries: Rejected[]): Promise<void> {
  await saveJsonIfChanged(layout.rejected, { entries });
}
export async function saveConflicts(layout: Layout, entries: Conflict[]): Promise<void> {
  await saveJsonIfChanged(layout.conflicts, { entries });
}
export async function saveNotWritten(layout: Layout, entries: NotWritten[]): Promise<void> {
  await saveJsonIfChanged(layout.notWritten, { entries });
}
export async function saveNewerOnServer(layout: Layout, entries: NewerOnServer[]): Promise<void> {
  await saveJsonIfChanged(layout.newerOnServer, { entries });
}
