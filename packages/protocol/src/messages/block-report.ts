import { z } from "zod";
import { EntryPath, WireFinding } from "./common.js";

/**
 * POST /v1/namespaces/:namespace/block-reports: a client held a team file back because the scanner
 * found a credential in it. Metadata only, for the audit log: never content, never the value.
 */
export const BlockReport = z.strictObject({
  clientId: z.string().min(1).max(128).optional(),
  path: EntryPath,
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  findings: z.array(WireFinding.extend({ fingerprint: z.string().max(128).optional() }).strict()).min(1).max(1000),
});
export type BlockReport = z.infer<typeof BlockReport>;
