import { z } from "zod";
import { Text } from "../well-formed.js";
import { ConflictRecord, ConflictStatus } from "./entries.js";
import { ClientId, NamespaceName, OpId, Version } from "./common.js";
import { ServerRef } from "./server.js";

/** GET /v1/namespaces/:namespace/conflicts?status=open|resolved|all (default open), oldest first. */
export const ConflictsQuery = z.strictObject({ status: z.enum([...ConflictStatus.options, "all"]).default("open") });
export type ConflictsQuery = z.infer<typeof ConflictsQuery>;
export const ConflictsResponse = z.object({ conflicts: z.array(ConflictRecord), server: ServerRef });
export type ConflictsResponse = z.infer<typeof ConflictsResponse>;

/** Path parameters of /conflicts/:id routes. */
export const ConflictParams = z.strictObject({ namespace: NamespaceName, id: z.uuid() });

/**
 * POST /v1/namespaces/:namespace/conflicts/:id/resolve: writes the resolution as a new head version
 * (kind resolve) when `baseVersion` is the head (else 409 version_conflict), and marks the record
 * resolved. Idempotent by `opId`.
 */
export const ResolveConflictRequest = z.union([
  z.strictObject({ opId: OpId, baseVersion: Version, content: Text, clientId: ClientId.optional() }),
  z.strictObject({ opId: OpId, baseVersion: Version, delete: z.literal(true), clientId: ClientId.optional() }),
]);
export type ResolveConflictRequest = z.infer<typeof ResolveConflictRequest>;
