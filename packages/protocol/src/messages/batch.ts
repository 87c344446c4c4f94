import { z } from "zod";
import { Text } from "../well-formed.js";
import { ERROR_CODES } from "../errors.js";
import { MERGE_POLICIES } from "../merge/merge-text.js";
import { ClientId, Cursor, EntryPath, OpId, Sha256, Version, WireFinding } from "./common.js";
import { ServerRef } from "./server.js";

/**
 * How the server merges a put with concurrent edits of the same lines' neighbourhood (see
 * `mergeText`): `union` keeps concurrent insertions at one point both (the server's lines first),
 * `conflict` (the default) makes them a conflict. The client picks it per path from its config.
 */
export const MergePolicyField = z.enum(MERGE_POLICIES);

/**
 * Write (create or replace) the content of one entry. `baseVersion` is the version the edit started
 * from (0: new file). `merge` is the policy for a three-way merge with a concurrent edit (default `conflict`).
 */
export const PutOperation = z.strictObject({
  opId: OpId,
  path: EntryPath,
  baseVersion: Version,
  content: Text,
  merge: MergePolicyField.optional(),
});
/** Delete one entry (recorded as a tombstone version). */
export const DeleteOperation = z.strictObject({
  opId: OpId,
  path: EntryPath,
  baseVersion: Version,
  delete: z.literal(true),
});
/**
 * Rename `renameFrom` (whose version the client last saw is `renameFromVersion`) to `path`, whose
 * content is `content` (the file at its new path, possibly edited too; `baseVersion`: the version
 * of `path` the client knows, 0 when new). Applied atomically: the old path gets a tombstone and
 * the new path a version, both recorded as one rename. A teammate's edit of the old path made
 * after `renameFromVersion` follows the file: it is merged into the new path (policy `merge`); an
 * overlap keeps the teammate's text at the new path and this content as a conflict record there.
 * Refused (`version_conflict`, transient) when the new path is live with other content.
 */
export const RenameOperation = z.strictObject({
  opId: OpId,
  path: EntryPath,
  baseVersion: Version,
  content: Text,
  merge: MergePolicyField.optional(),
  renameFrom: EntryPath,
  renameFromVersion: Version.min(1),
});
export const Operation = z.union([PutOperation, DeleteOperation, RenameOperation]);
export type Operation = z.infer<typeof Operation>;

/** POST /v1/namespaces/:namespace/batch body. Each operation is applied atomically on its own. */
export const BatchRequest = z.strictObject({
  /** Stable id of the sending device/installation, recorded in history. */
  clientId: ClientId.optional(),
  /**
   * The server identity and epoch the operations' base versions come from. When given and not the
   * server's, nothing is applied: 409 `stale_cursor` (details `{ server }`), so base versions of
   * another epoch never reach a merge. Clients that track the epoch always send it.
   */
  server: z.strictObject(ServerRef.shape).optional(), // strict: an unknown key (one holding a lone surrogate) is refused, not dropped
  operations: z.array(Operation).min(1),
});
export type BatchRequest = z.infer<typeof BatchRequest>;

/**
 * In a result: the operation's content now lives at the result's `path`, moved from `path` here,
 * which is a tombstone at `version` (a rename, or a put of a renamed path that followed the file).
 * `cursor`: the change feed's cursor of that tombstone when this very operation wrote it (a rename
 * whose old path was live), so the sender can move its cursor over its own rename; absent when the
 * tombstone is someone else's (a put that followed a teammate's rename, an old path already deleted).
 */
export const RenamedFrom = z.object({ path: EntryPath, version: Version, cursor: Cursor.optional() });

/** `path`: the entry the result is about (for a put that followed a rename: the new path, see `renamedFrom`). */
const ResultBase = { opId: OpId, path: EntryPath, renamedFrom: RenamedFrom.optional() };

/** Fast-forward: baseVersion was the head. */
export const AppliedResult = z.object({
  ...ResultBase,
  status: z.literal("applied"),
  version: Version,
  sha256: Sha256.nullable(),
  deleted: z.boolean(),
  cursor: Cursor,
});
/**
 * The server three-way merged base, head and the incoming content; `content` is the merged result.
 * `headAuthor`: who wrote the head version the edit was merged with.
 */
export const MergedResult = z.object({
  ...ResultBase,
  status: z.literal("merged"),
  version: Version,
  sha256: Sha256,
  content: Text,
  cursor: Cursor,
  headAuthor: Text.optional(),
});
/**
 * Why a conflict result's edits were not merged, when it was not overlapping lines: the texts merge
 * line by line, but the merged text would hold a credential (`merge_holds_credential`: each edit
 * alone is clean, e.g. a key id added by one teammate and its secret by another; `findings` say
 * where in the merged text, never the value) or exceed the entry limit (`entry_too_large`).
 */
export const MERGE_REFUSAL_CODES = ["merge_holds_credential", "entry_too_large"] as const;
export type MergeRefusalCode = (typeof MERGE_REFUSAL_CODES)[number];

/**
 * Edits not merged: the head stays; the incoming content is kept as conflict record `conflictId`.
 * `headVersion`/`headContent` let the client show both sides (`headContent` null: head is a
 * tombstone); `headAuthor` wrote the head version. `code` absent: the edits changed the same lines;
 * else why their clean merge was not stored ({@link MERGE_REFUSAL_CODES}), with `findings` (rule and
 * position in the merged text) for `merge_holds_credential`.
 */
export const ConflictResult = z.object({
  ...ResultBase,
  status: z.literal("conflict"),
  conflictId: Text,
  headVersion: Version,
  headSha256: Sha256.nullable(),
  headContent: Text.nullable(),
  cursor: Cursor,
  headAuthor: Text.optional(),
  code: z.enum(MERGE_REFUSAL_CODES).optional(),
  findings: z.array(WireFinding).optional(),
});
/** Refused; nothing of the operation was stored. `findings` only with `secret_detected`. */
export const RejectedResult = z.object({
  ...ResultBase,
  status: z.literal("rejected"),
  code: z.enum(ERROR_CODES),
  message: Text,
  details: z.record(Text, z.unknown()).optional(),
  findings: z.array(WireFinding).optional(),
});
export const OperationResult = z.discriminatedUnion("status", [
  AppliedResult,
  MergedResult,
  ConflictResult,
  RejectedResult,
]);
export type OperationResult = z.infer<typeof OperationResult>;

export const BatchResponse = z.object({ results: z.array(OperationResult), server: ServerRef });
export type BatchResponse = z.infer<typeof BatchResponse>;
