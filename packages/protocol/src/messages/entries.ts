import { z } from "zod";
import { Text } from "../well-formed.js";
import { AppliedResult } from "./batch.js";
import { ClientId, Cursor, EntryPath, EntryState, MAX_INT4, OpId, queryInt, Sha256, Version } from "./common.js";
import { PurgeMark } from "./purge.js";
import { ServerRef } from "./server.js";

/** Query of the per-entry read routes: `?path=team/build.md`. */
export const EntryQuery = z.strictObject({ path: EntryPath });
export type EntryQuery = z.infer<typeof EntryQuery>;

/** GET /v1/namespaces/:namespace/entry?path=P: the head. `content` null for a tombstone. */
export const EntryResponse = EntryState.extend({
  /** The name of the head version's author (what conflict markers and events name). */
  author: Text,
  updatedAt: Text,
  server: ServerRef,
});
export type EntryResponse = z.infer<typeof EntryResponse>;

/**
 * PUT /v1/namespaces/:namespace/entry?path=P: compare-and-set write (no merging).
 * Succeeds only when `baseVersion` is the head version (0: the path has never existed); else 409
 * `version_conflict` with `details.currentVersion`. `delete: true` writes a tombstone instead.
 */
export const PutEntryRequest = z.union([
  z.strictObject({ baseVersion: Version, content: Text }),
  z.strictObject({ baseVersion: Version, delete: z.literal(true) }),
]);
export type PutEntryRequest = z.infer<typeof PutEntryRequest>;

/** The version a write produced (or the unchanged head when the write changed nothing). */
export const WriteResponse = z.object({
  path: EntryPath,
  version: Version,
  deleted: z.boolean(),
  sha256: Sha256.nullable(),
  cursor: Cursor,
  server: ServerRef,
});
export type WriteResponse = z.infer<typeof WriteResponse>;

/**
 * Metadata of one version in history. `kind`: write | delete | merge | restore | resolve | rename.
 * A rename's tombstone names the new path (`renamedTo`), its new version the old one (`renamedFrom`).
 */
export const VersionInfo = z.object({
  version: Version,
  kind: Text,
  deleted: z.boolean(),
  sha256: Sha256.nullable(),
  size: z.number().int().nonnegative(),
  /** The head this version replaced (null for the first version). */
  parentVersion: Version.nullable(),
  /** For merges and non-fast-forward writes: the version the writer started from. */
  baseVersion: Version.nullable(),
  author: Text,
  clientId: Text.nullable(),
  opId: Text.nullable(),
  cursor: Cursor,
  createdAt: Text,
  renamedFrom: EntryPath.optional(),
  renamedTo: EntryPath.optional(),
  /** An admin purged this version's content: who, when (ISO 8601) and why; the content is gone. */
  purged: PurgeMark.optional(),
});
export type VersionInfo = z.infer<typeof VersionInfo>;

/** A conflict record's state: `open` until a resolve writes a new head version, then `resolved`. Stored as text by the server. */
export const ConflictStatus = z.enum(["open", "resolved"]);
export type ConflictStatus = z.infer<typeof ConflictStatus>;

/** A conflict record: an incoming edit (or delete) that overlapped the head and was kept aside. */
export const ConflictRecord = z.object({
  id: Text,
  path: EntryPath,
  baseVersion: Version,
  headVersion: Version,
  deleted: z.boolean(),
  sha256: Sha256.nullable(),
  /** The incoming content that was not applied (null when the incoming operation was a delete). */
  content: Text.nullable(),
  author: Text,
  clientId: Text.nullable(),
  opId: Text,
  cursor: Cursor,
  status: ConflictStatus,
  resolvedVersion: Version.nullable(),
  resolvedAt: Text.nullable(),
  createdAt: Text,
});
export type ConflictRecord = z.infer<typeof ConflictRecord>;

/** GET /v1/namespaces/:namespace/history?path=P: versions newest first, and the path's conflict records (newest first). */
export const HistoryResponse = z.object({
  path: EntryPath,
  versions: z.array(VersionInfo),
  conflicts: z.array(ConflictRecord),
  server: ServerRef,
});
export type HistoryResponse = z.infer<typeof HistoryResponse>;

/** GET /v1/namespaces/:namespace/version?path=P&version=N */
export const VersionQuery = z.strictObject({ path: EntryPath, version: queryInt(1, MAX_INT4) });
export type VersionQuery = z.infer<typeof VersionQuery>;
export const VersionResponse = VersionInfo.extend({ path: EntryPath, content: Text.nullable(), server: ServerRef });
export type VersionResponse = z.infer<typeof VersionResponse>;

/** GET /v1/namespaces/:namespace/diff?path=P&from=A&to=B: unified diff (a tombstone diffs as empty text; version 0 = empty). */
export const DiffQuery = z.strictObject({
  path: EntryPath,
  from: queryInt(0, MAX_INT4),
  to: queryInt(0, MAX_INT4),
});
export type DiffQuery = z.infer<typeof DiffQuery>;
export const DiffResponse = z.object({ path: EntryPath, from: Version, to: Version, diff: Text });
export type DiffResponse = z.infer<typeof DiffResponse>;

/** POST /v1/namespaces/:namespace/restore: writes version `version`'s content as a new head version (kind restore). Idempotent by `opId`. */
export const RestoreRequest = z.strictObject({
  opId: OpId,
  path: EntryPath,
  version: z.number().int().positive().max(MAX_INT4),
  clientId: ClientId.optional(),
});
export type RestoreRequest = z.infer<typeof RestoreRequest>;

/** Answer to POST .../restore and POST .../conflicts/:id/resolve: the version written. */
export const AppliedWriteResponse = AppliedResult.extend({ server: ServerRef });
export type AppliedWriteResponse = z.infer<typeof AppliedWriteResponse>;

/**
 * POST /v1/namespaces/:namespace/entries/read: the heads of up to 200 paths, with their content
 * (null for a tombstone), in one request. A client applying many heads at once (a reconciliation,
 * retries of entries not written) reads them in pages of this size rather than one GET entry each.
 */
export const ReadEntriesRequest = z.strictObject({
  paths: z.array(EntryPath).min(1).max(200),
});
export type ReadEntriesRequest = z.infer<typeof ReadEntriesRequest>;

/** One head per requested path that has an entry, in the order asked; paths without one are left out. */
export const ReadEntriesResponse = z.object({
  entries: z.array(EntryResponse.omit({ server: true })),
  server: ServerRef,
});
export type ReadEntriesResponse = z.infer<typeof ReadEntriesResponse>;
