/** Server limits; every refusal names the limit and its value so a client can adapt. */
export interface Limits {
  /** Largest entry content, in UTF-8 bytes. */
  maxEntryBytes: number;
  /** Most live (non-deleted) entries per namespace. */
  maxEntriesPerNamespace: number;
  /** Largest request body, in bytes. */
  maxBodyBytes: number;
  /** Most operations in one batch. */
  maxOperationsPerBatch: number;
  /** Requests per token per `rateLimitWindowMs`; 0 disables rate limiting. */
  rateLimitMax: number;
  rateLimitWindowMs: number;
}

export const DEFAULT_LIMITS: Limits = {
  maxEntryBytes: 256 * 1024,
  maxEntriesPerNamespace: 10_000,
  maxBodyBytes: 8 * 1024 * 1024,
  maxOperationsPerBatch: 100,
  rateLimitMax: 600,
  rateLimitWindowMs: 60_000,
};
