import { z } from "zod";
import { Text } from "../well-formed.js";
import { EntryPath, MAX_INT4, Version } from "./common.js";
import { FreeText } from "./bypasses.js";

/**
 * POST /v1/admin/namespaces/:namespace/purge (admin): remove the content of version `version` of
 * `path` (with `sameContent`, of every version of the entry holding that content) from history, the
 * entry's head, every conflict record of the namespace holding it and the stored operation results.
 * History keeps each version as a placeholder (`purged`: by, at, reason). A purged head is replaced
 * by a tombstone (kind `purge`), so teammates' clients delete the file (a file changed locally is
 * kept, as with any delete). Purging again is harmless. `reason` is scanned: no credential in it.
 */
export const PurgeRequest = z.strictObject({
  path: EntryPath,
  version: z.number().int().positive().max(MAX_INT4),
  reason: FreeText,
  sameContent: z.boolean().default(false),
});
export type PurgeRequest = z.infer<typeof PurgeRequest>;

/** What a purge removed: the versions whose content went, the tombstone written (or null), and counts. */
export const PurgeResponse = z.object({
  path: EntryPath,
  versions: z.array(Version),
  tombstoneVersion: Version.nullable(),
  conflicts: z.number().int().nonnegative(),
  operations: z.number().int().nonnegative(),
});
export type PurgeResponse = z.infer<typeof PurgeResponse>;

/** How history shows a purged version (its content and size are gone). */
export const PurgeMark = z.object({ by: Text, at: Text, reason: Text });
export type PurgeMark = z.infer<typeof PurgeMark>;
