import { z } from "zod";
import { Text } from "../well-formed.js";
import { ClientId, EntryPath, MAX_INT4, NamespaceName, queryInt } from "./common.js";
import { FindingFingerprint, FingerprintKeyId, RuleId } from "./block-report.js";

/** Why a user pushes a held-back file anyway (as GitHub push protection asks). */
export const BypassReason = z.enum(["false_positive", "test_value", "will_fix"]);
export type BypassReason = z.infer<typeof BypassReason>;

/** The team's bypass policy (admin-set): `immediate` approves a request at once; `approval` waits for an admin. */
export const BypassPolicy = z.enum(["immediate", "approval"]);
export type BypassPolicy = z.infer<typeof BypassPolicy>;

/** `approved` fingerprints are allowed for the team (while made with the current key) until `revoked`. */
export const BypassStatus = z.enum(["pending", "approved", "denied", "revoked"]);
export type BypassStatus = z.infer<typeof BypassStatus>;

/**
 * Free text of people (a request's reason, an admin's note): 1-500 characters on one line, no
 * control characters. The server scans it: a credential in it is refused (`secret_detected`).
 */
export const FreeText = Text
  .trim()
  .min(1, "must not be empty")
  .max(500, "at most 500 characters")
  .regex(/^[^\p{Cc}]*$/u, "must be one line without control characters");

/**
 * POST /v1/team/bypasses (member): let the team push content holding the secret with this
 * fingerprint (made with the team key `fingerprintKeyId`). Where it was found (namespace, path,
 * line, rule) and why are recorded; the value is never sent. `path` is the entry path (`ci.md`), as
 * block reports name it; a `team/` lead (`team/ci.md`, what clients before try18 F3 sent) is dropped,
 * so the server stores and audits the entry path either way. Answer: 201 with the new request, or
 * 200 with the team's pending or approved one for the same fingerprint.
 */
export const BypassRequest = z.strictObject({
  namespace: NamespaceName,
  path: EntryPath,
  ruleId: RuleId,
  line: z.number().int().positive().max(MAX_INT4),
  column: z.number().int().positive().max(MAX_INT4).optional(),
  fingerprint: FindingFingerprint,
  fingerprintKeyId: FingerprintKeyId,
  reason: BypassReason,
  reasonText: FreeText.optional(),
  clientId: ClientId.optional(),
});
export type BypassRequest = z.infer<typeof BypassRequest>;

/** One bypass request and its state. Times are ISO 8601; `path` is stored with credentials redacted. */
export const Bypass = z.object({
  id: z.uuid(),
  status: BypassStatus,
  fingerprint: Text,
  fingerprintKeyId: z.number().int(),
  /** false once the team's key was rotated: the fingerprint no longer matches anything. */
  currentKey: z.boolean(),
  ruleId: Text,
  namespace: Text,
  path: Text,
  line: z.number().int(),
  column: z.number().int().nullable(),
  reason: BypassReason,
  reasonText: Text.nullable(),
  requestedBy: Text,
  requestedAt: Text,
  /** Who approved or denied (`policy`: approved at once by the team's policy). */
  decidedBy: Text.nullable(),
  decidedAt: Text.nullable(),
  /** The deciding admin's note on an approval or denial. */
  note: Text.nullable(),
  revokedBy: Text.nullable(),
  revokedAt: Text.nullable(),
  /** The revoking admin's note (why it was revoked); null when none was given. A reply of an older server (before migration 0013) has none: read as null. */
  revokeNote: Text.nullable().default(null),
});
export type Bypass = z.infer<typeof Bypass>;

export const BypassResponse = z.object({ bypass: Bypass });
export type BypassResponse = z.infer<typeof BypassResponse>;

/** GET /v1/team/bypasses/:id, POST /v1/admin/bypasses/:id/approve|deny|revoke */
export const BypassParams = z.strictObject({ id: z.uuid() });

/**
 * GET /v1/admin/bypasses?status&limit&before (admin: the team's) and GET /v1/team/bypasses (any
 * role: the caller's own requests): newest first; pass `nextBefore` (a bypass id) as `before` for
 * the next page.
 */
export const BypassListQuery = z.strictObject({
  status: z.enum(["pending", "approved", "denied", "revoked", "all"]).default("pending"),
  limit: queryInt(1, 500).default(100),
  before: z.uuid().optional(),
});
export type BypassListQuery = z.infer<typeof BypassListQuery>;
export const BypassList = z.object({ bypasses: z.array(Bypass), nextBefore: z.uuid().nullable() });
export type BypassList = z.infer<typeof BypassList>;

/**
 * POST /v1/admin/bypasses/:id/approve|deny|revoke body (optional). Approve and deny take a pending
 * request (else 409 `bypass_not_pending`); revoke an approved one (else 409 `bypass_not_approved`).
 * The note is kept on the request (`note` for approve and deny, `revokeNote` for revoke) and in
 * the decision's audit event (`note`).
 */
export const BypassDecision = z.strictObject({ note: FreeText.optional() });
export type BypassDecision = z.infer<typeof BypassDecision>;

/** GET/PUT /v1/admin/policy: the team's settings an admin chooses (a new team: `approval`). */
export const TeamPolicy = z.strictObject({ bypassPolicy: BypassPolicy });
export type TeamPolicy = z.infer<typeof TeamPolicy>;
