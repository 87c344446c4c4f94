import { z } from "zod";
import { Text } from "../well-formed.js";
import { Cursor, EntryPath, EntryState, queryInt, Sha256, Version } from "./common.js";
import { ServerRef } from "./server.js";

/**
 * GET /v1/namespaces/:namespace/heads?after=P&limit=N: the head of every path of the namespace
 * (tombstones included), metadata only, in path order, `limit` (1-1000, default 500) per page.
 * Pass `nextAfter` as `after` for the next page (null: that was the last one). Used by a client's
 * reconciliation to compare every head by sha256 without downloading content.
 */
export const HeadsQuery = z.strictObject({
  /** Only paths after this one (exclusive), in the server's path order. */
  after: EntryPath.optional(),
  limit: queryInt(1, 1000).default(500),
});
export type HeadsQuery = z.infer<typeof HeadsQuery>;

/** One head; `sha256` is null for a tombstone. */
export const HeadInfo = EntryState.pick({ path: true, version: true, sha256: true, deleted: true });
export type HeadInfo = z.infer<typeof HeadInfo>;

export const HeadsResponse = z.object({
  heads: z.array(HeadInfo),
  nextAfter: EntryPath.nullable(),
  /** The namespace's cursor when the page was read: every change after it is in the change feed. */
  cursor: Cursor,
  server: ServerRef,
});
export type HeadsResponse = z.infer<typeof HeadsResponse>;

/** The first 16 hex digits of a content sha256 (64 bits). */
export const Sha256Prefix = Text.regex(/^[0-9a-f]{16}$/, "sha256 prefix: 16 lowercase hex digits");

/**
 * POST /v1/namespaces/:namespace/versions/find: for each path, the newest version in its history
 * (tombstones excluded) whose content sha256 starts with one of `candidates`. A client that lost
 * track of the server (another epoch, lost state) finds with it the newest common ancestor of its
 * file: candidates are the file's own hash and the hashes of the versions it last held.
 */
export const FindVersionsRequest = z.strictObject({
  paths: z
    .array(z.strictObject({ path: EntryPath, candidates: z.array(Sha256Prefix).min(1).max(16) }))
    .min(1)
    .max(200),
});
export type FindVersionsRequest = z.infer<typeof FindVersionsRequest>;

/** Paths without a match are left out. `sha256` is the matched version's full hash. */
export const FindVersionsResponse = z.object({
  found: z.array(z.object({ path: EntryPath, version: Version, sha256: Sha256 })),
  server: ServerRef,
});
export type FindVersionsResponse = z.infer<typeof FindVersionsResponse>;
