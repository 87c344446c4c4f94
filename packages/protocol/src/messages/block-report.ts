import { z } from "zod";
import { Text } from "../well-formed.js";
import { ClientId, EntryPath, MAX_INT4, WireFinding } from "./common.js";

/** A rule id as the scanner names rules: kebab-case, at most 64 characters (catalog or custom rule). */
export const RuleId = Text
  .max(64)
  .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, "ruleId: kebab-case (a-z, 0-9, single dashes), at most 64 characters");

/** A keyed finding fingerprint: 32 lowercase hex digits (HMAC-SHA-256, truncated). */
export const FindingFingerprint = Text.regex(/^[0-9a-f]{32}$/, "fingerprint: 32 lowercase hex digits");

/** A team fingerprint key's number: 1 for the team's first key, +1 per rotation. */
export const FingerprintKeyId = z.number().int().positive().max(MAX_INT4);

/**
 * POST /v1/namespaces/:namespace/block-reports: a client held a team file back because the scanner
 * found a credential in it. Metadata only, for the audit log: never content, never the value.
 * No field is free text: `ruleId` is kebab-case, `fingerprint` hex; the server stores the catalog's
 * label for a known rule id and no label otherwise (the client's `label` is accepted but ignored);
 * `path` is stored with any credential in it redacted.
 * `fingerprintKeyId` names the team key the fingerprints were made with (the scan policy's): a key
 * rotated away since is refused with 409 `fingerprint_key_stale` (details `{ currentKeyId }`);
 * fetch the scan policy and scan again. Without it (older clients) the fingerprints are not kept.
 */
export const BlockReport = z.strictObject({
  clientId: ClientId.optional(),
  fingerprintKeyId: FingerprintKeyId.optional(),
  path: EntryPath,
  sha256: Text.regex(/^[0-9a-f]{64}$/),
  findings: z.array(WireFinding.extend({ ruleId: RuleId, fingerprint: FindingFingerprint.optional() }).strict()).min(1).max(1000),
});
export type BlockReport = z.infer<typeof BlockReport>;
