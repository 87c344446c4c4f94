import { z } from "zod";
import { Text } from "../well-formed.js";

/**
 * Which server database, and which incarnation of it, a reply comes from. Every reply that carries
 * a cursor carries it as `server`. A client keeps the pair with its cursor: a cursor is meaningful
 * only for the identity and epoch it came from.
 */
export const ServerRef = z.object({
  /** Created once per database (a UUID); a restore of that database keeps it. */
  id: z.uuid(),
  /**
   * Changes (a new UUID) on every restore, reset or import of the database, and when an operator
   * runs `teammem-server epoch rotate`. A client that sees another epoch than its own (or a cursor
   * below its own) reconciles by content hashes.
   */
  epoch: z.uuid(),
});
export type ServerRef = z.infer<typeof ServerRef>;

/** The server's limits; a request over one is refused with the code named beside it. */
export const ServerLimits = z.object({
  /** Largest entry content in UTF-8 bytes (`entry_too_large`). */
  maxEntryBytes: z.number().int().positive(),
  /** Largest request body in bytes (`body_too_large`). */
  maxBodyBytes: z.number().int().positive(),
  /** Most live entries per namespace (`namespace_full`). */
  maxEntriesPerNamespace: z.number().int().positive(),
  /** Most operations per batch (`batch_too_large`). */
  maxOperationsPerBatch: z.number().int().positive(),
});
export type ServerLimits = z.infer<typeof ServerLimits>;

/** GET /v1/server (any valid token): who the server is and its limits. */
export const ServerInfoResponse = z.object({
  server: ServerRef,
  /** When the current epoch started (ISO 8601) and why (e.g. "first start", "database restored: database oid changed"). */
  epochStartedAt: Text,
  epochReason: Text,
  limits: ServerLimits,
});
export type ServerInfoResponse = z.infer<typeof ServerInfoResponse>;

/** The message of an `entry_too_large` refusal; the client uses it too when it refuses a file locally. */
export function entryTooLargeMessage(bytes: number, limit: number): string {
  return `content is ${bytes} UTF-8 bytes, the limit is ${limit}`;
}

/** The message of a `body_too_large` refusal. */
export function bodyTooLargeMessage(limit: number): string {
  return `the request body exceeds ${limit} bytes`;
}
