import { z } from "zod";
import { Text } from "../well-formed.js";
import { FindingFingerprint, FingerprintKeyId } from "./block-report.js";

/**
 * GET /v1/team/scan-policy (any role): what a client of the team scans with, so the same secret
 * has the same fingerprint on every client and on the server of a team (and unrelated ones across
 * teams). `fingerprintKey.key` (64 hex characters) is passed to the scanner as
 * `scan(text, { fingerprintKey: key })`; `fingerprintKey.id` goes into block reports, so the
 * server can tell one made with a key rotated away since (409 `fingerprint_key_stale`).
 * `allowedFingerprints`: the fingerprints (made with this key) of the team's approved bypasses;
 * passed as `scan(text, { allowFingerprints })` so a client sends what the server's re-scan
 * accepts (absent from older servers: none).
 */
export const ScanPolicyResponse = z.object({
  fingerprintKey: z.object({ id: FingerprintKeyId, key: Text.regex(/^[0-9a-f]{64}$/) }),
  allowedFingerprints: z.array(FindingFingerprint).default([]),
});
export type ScanPolicyResponse = z.infer<typeof ScanPolicyResponse>;

/** POST /v1/admin/fingerprint-key/rotate answer: the new current key's id (its value goes to clients only through the scan policy). */
export const RotateFingerprintKeyResponse = z.object({ fingerprintKeyId: FingerprintKeyId });
export type RotateFingerprintKeyResponse = z.infer<typeof RotateFingerprintKeyResponse>;
