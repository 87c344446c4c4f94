import { z } from "zod";
import { Text } from "../well-formed.js";
import { Cursor, EntryPath, EntryState, queryInt, Sha256, Version } from "./common.js";
import { ServerRef } from "./server.js";

/** GET /v1/namespaces/:namespace/changes query. Changes with cursor > `since`, oldest first. */
export const ChangesQuery = z.strictObject({
  since: queryInt(0, Number.MAX_SAFE_INTEGER).default(0),
  limit: queryInt(1, 1000).default(100),
});
export type ChangesQuery = z.infer<typeof ChangesQuery>;

/**
 * Content an admin purged from an entry's history (POST /v1/admin/namespaces/:namespace/purge):
 * `versions` whose content is gone, the `sha256` of that content (except the head's own, when an
 * unpurged head holds the same text), and the latest purge's `by` (admin's name), `at` (ISO 8601)
 * and `reason`. A client holding any of that content (base copies, conflict copies) drops it.
 */
export const PurgeNotice = z.object({
  versions: z.array(Version),
  sha256: z.array(Sha256),
  by: Text,
  at: Text,
  reason: Text,
});
export type PurgeNotice = z.infer<typeof PurgeNotice>;

/**
 * One new head version of an entry. `content` is null for a tombstone (`deleted: true`).
 * `renamedTo`: the tombstone a rename left at the old path names the new path; `renamedFrom`: the
 * version a rename wrote at the new path names the old one.
 * `purged`: present when versions of the entry were purged. A purge of the head writes a tombstone
 * (kind `purge`); a purge of older versions re-announces the head at a new cursor (same version),
 * so every client, live or catching up, learns of it.
 */
export const Change = EntryState.extend({
  author: Text,
  createdAt: Text,
  renamedFrom: EntryPath.optional(),
  renamedTo: EntryPath.optional(),
  purged: PurgeNotice.optional(),
});
export type Change = z.infer<typeof Change>;

/**
 * `nextCursor` is the cursor to pass as `since` next time; `hasMore` says whether to ask again now.
 * `since` above the namespace's cursor is refused with 409 `stale_cursor` (details `{ cursor, server }`):
 * the cursor came from another server identity or epoch, so the client reconciles.
 */
export const ChangesResponse = z.object({
  changes: z.array(Change),
  nextCursor: Cursor,
  hasMore: z.boolean(),
  server: ServerRef,
});
export type ChangesResponse = z.infer<typeof ChangesResponse>;
