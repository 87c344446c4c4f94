import { z } from "zod";
import { Text } from "../well-formed.js";
import { NamespaceName, queryInt } from "./common.js";
import { FindingFingerprint, RuleId } from "./block-report.js";
import { BypassPolicy, BypassReason } from "./bypasses.js";
import { RoleName, UserName } from "./admin.js";

/**
 * What an audit event records; each is produced by the action itself, never by a client's say-so
 * (the actor comes from the token):
 * - `upload_rejected`: the server refused content, a path or a name holding a credential;
 * - `client_blocked`: a client held a file back (its block report);
 * - `auth_denied`: refused requests (bad, expired or revoked token, too low a role), aggregated per
 *   window, address, code and token; never token material;
 * - `token_issued`, `token_revoked`, `member_role_changed`, `fingerprint_key_rotated`;
 * - `team_created`: a team was created (`teammem-server team create`, or the first start's `default`);
 * - `member_added`: a user became a member of the team (`targetUser`, `role`), by the token issued to them;
 * - `epoch_rotated`: a new server epoch, started by an operator (`teammem-server epoch rotate`, actor
 *   `cli`) or by the server on finding its database restored or replaced (actor `server`): `epoch`,
 *   `previousEpoch` (the one it replaced), `reasonText` (the `--reason`, or what changed); recorded
 *   in every team, as it makes every client reconcile;
 * - `backup_imported`: the database was loaded from a backup (`teammem-server import`): `epoch` (the
 *   new one), `previousEpoch` (the backup's), `count` (rows imported), `reasonText`; in every imported team;
 * - `entry_restored`, `conflict_recorded`;
 * - `merge_holds_credential`: two clean edits merged into text holding a credential; the merge was
 *   not stored (a conflict record keeps the edit); findings with fingerprints, never the value;
 * - `bypass_requested`, `bypass_approved`, `bypass_denied`, `bypass_revoked`: a bypass request and
 *   its decisions (fingerprint, rule, path, line and reason; actor `policy` for an approval by the
 *   team's `immediate` policy);
 * - `bypass_policy_changed`: an admin changed the team's bypass policy from `previousPolicy` to `policy` (`immediate` or `approval`);
 * - `version_purged`: an admin removed content from history (`version`, `count` versions, `reasonText`);
 * - `retention_purge`: the retention job deleted events older than `periodEnd`.
 */
export const AUDIT_EVENT_KINDS = [
  "upload_rejected",
  "client_blocked",
  "auth_denied",
  "token_issued",
  "token_revoked",
  "member_role_changed",
  "fingerprint_key_rotated",
  "team_created",
  "member_added",
  "epoch_rotated",
  "backup_imported",
  "entry_restored",
  "conflict_recorded",
  "merge_holds_credential",
  "bypass_requested",
  "bypass_approved",
  "bypass_denied",
  "bypass_revoked",
  "bypass_policy_changed",
  "version_purged",
  "retention_purge",
] as const;
export const AuditEventKind = z.enum(AUDIT_EVENT_KINDS);
export type AuditEventKind = z.infer<typeof AuditEventKind>;

/** A finding as the audit log keeps it: rule, position, the catalog's label, the team-keyed fingerprint; never the value. */
export const AuditFinding = z.object({
  ruleId: Text,
  label: Text.optional(),
  line: z.number().int(),
  column: z.number().int().optional(),
  fingerprint: Text.optional(),
});
export type AuditFinding = z.infer<typeof AuditFinding>;

/**
 * One audit event: metadata only, never content, token or secret values. Every field is typed
 * and null when the kind does not set it (the server README lists the fields of each kind).
 * Times are ISO 8601 (UTC). `actor` is who acted: a user (from the token), `cli` (the server's
 * command line on its database), `policy` (an automatic approval), `server` (a scheduled job, a new epoch on a
 * restored database, or a refused request whose token named nobody).
 */
export const AuditEvent = z.object({
  id: z.number().int().positive(),
  kind: AuditEventKind,
  createdAt: Text,
  actor: Text.nullable(),
  namespace: Text.nullable(),
  path: Text.nullable(),
  clientId: Text.nullable(),
  /** An error code: the refusal's (`secret_detected`) or the denial's (`unauthorized`, `token_revoked`...). */
  code: Text.nullable(),
  findings: z.array(AuditFinding).nullable(),
  fingerprintKeyId: z.number().int().nullable(),
  tokenId: Text.nullable(),
  /** The user a token, role change or bypass is about (the actor is who did it). */
  targetUser: Text.nullable(),
  role: RoleName.nullable(),
  previousRole: RoleName.nullable(),
  /** Version acted on: restored from, purged, or the head a conflict was recorded against. */
  version: z.number().int().nullable(),
  /** Version an action produced (the restored version's new number). */
  resultVersion: z.number().int().nullable(),
  conflictId: Text.nullable(),
  bypassId: Text.nullable(),
  reason: BypassReason.nullable(),
  /** Free text of a bypass request or a purge (scanned: never holds a credential), or why an epoch started (stored with credentials redacted). */
  reasonText: Text.nullable(),
  /** An admin's note on a bypass decision. */
  note: Text.nullable(),
  /** The bypass policy: the team's when a request was made, or the new one (`bypass_policy_changed`). */
  policy: BypassPolicy.nullable(),
  /** The policy before a `bypass_policy_changed` (null in events recorded before the server's migration 0009). */
  previousPolicy: BypassPolicy.nullable(),
  /** How many: refused requests in the window (`auth_denied`), events deleted (`retention_purge`), rows imported (`backup_imported`). */
  count: z.number().int().nullable(),
  remoteAddress: Text.nullable(),
  periodStart: Text.nullable(),
  periodEnd: Text.nullable(),
  /** The server epoch an action started (`epoch_rotated`, `backup_imported`). Absent from an older server's reply: read as null. */
  epoch: Text.nullable().default(null),
  /** The epoch before (`epoch_rotated`), or the backup's (`backup_imported`). */
  previousEpoch: Text.nullable().default(null),
});
export type AuditEvent = z.infer<typeof AuditEvent>;

const commaList = <T extends z.ZodType<unknown, string>>(item: T) =>
  Text
    .max(2000)
    .transform((v) => v.split(",").map((s) => s.trim()).filter((s) => s !== ""))
    .pipe(z.array(item).min(1, "give at least one value"));

/** The filter fields, before the `from`/`to` order check (zod cannot extend a refined object). */
const AuditFilterFields = z.strictObject({
  from: z.iso.datetime({ offset: true }).optional(),
  to: z.iso.datetime({ offset: true }).optional(),
  kind: commaList(AuditEventKind).optional(),
  user: UserName.optional(),
  namespace: NamespaceName.optional(),
  ruleId: RuleId.optional(),
  pathPrefix: Text
    .min(1)
    .max(1024)
    .refine((v) => !v.includes("\u0000"), "pathPrefix must not contain NUL")
    .optional(),
  fingerprint: FindingFingerprint.optional(),
});

/**
 * Refuses a time range that ends before it starts (`to` earlier than `from`, compared as instants,
 * whatever their offsets), naming `to`: such a filter matches nothing, and an empty answer would
 * hide the mistake. `from` equal to `to` is an empty range, not an error. The message names the
 * fields, never the values sent (like every validation message, 9d975b3).
 */
function orderedRange(value: { from?: string | undefined; to?: string | undefined }, ctx: z.core.$RefinementCtx): void {
  if (value.from === undefined || value.to === undefined) return;
  if (Date.parse(value.to) < Date.parse(value.from)) {
    ctx.addIssue({ code: "custom", path: ["to"], message: "must not be before from", input: value.to });
  }
}

/**
 * Filters shared by the audit list, summary and export (query parameters). All optional; combined
 * with AND. `from` inclusive, `to` exclusive (ISO 8601 with offset; `to` before `from` is refused);
 * `kind` a comma-separated list; `user` matches the actor or the target user; `pathPrefix` the
 * start of the (redacted) path; `ruleId` and `fingerprint` any finding of the event.
 */
export const AuditFilter = AuditFilterFields.superRefine(orderedRange);
export type AuditFilter = z.infer<typeof AuditFilter>;

/** GET /v1/admin/audit-events: newest first; pass `nextBefore` as `before` for the next page. */
export const AuditEventQuery = AuditFilterFields.extend({
  limit: queryInt(1, 500).default(100),
  /** Cursor: only events with an id below it. */
  before: queryInt(1, Number.MAX_SAFE_INTEGER).optional(),
}).superRefine(orderedRange);
export type AuditEventQuery = z.infer<typeof AuditEventQuery>;
export const AuditEventList = z.object({ events: z.array(AuditEvent), nextBefore: z.number().int().nullable() });
export type AuditEventList = z.infer<typeof AuditEventList>;

/** GET /v1/admin/audit-events/:id */
export const AuditEventParams = z.strictObject({ id: queryInt(1, Number.MAX_SAFE_INTEGER) });

const Count = z.object({ key: Text, count: z.number().int().nonnegative() });
/**
 * GET /v1/admin/audit-events/summary (filters as the list): how many events match, by kind, rule
 * (events with at least one finding of the rule), actor, namespace (each most first) and UTC day
 * (oldest first, days without events left out).
 */
export const AuditSummary = z.object({
  total: z.number().int().nonnegative(),
  byKind: z.array(Count),
  byRule: z.array(Count),
  byUser: z.array(Count),
  byNamespace: z.array(Count),
  byDay: z.array(z.object({ day: Text, count: z.number().int().nonnegative() })),
});
export type AuditSummary = z.infer<typeof AuditSummary>;

/**
 * GET /v1/admin/audit-events/export?format=csv|jsonl (filters as the list): every matching event,
 * oldest first, streamed. JSON Lines: one {@link AuditEvent} per line. CSV: a header row, then one
 * row per event with the AuditEvent fields in order, `findings` as JSON plus `ruleIds` and
 * `fingerprints` (`;`-separated); cells starting with `=`, `+`, `-`, `@`, tab or CR get a leading
 * `'` so a spreadsheet does not run them as formulas.
 */
export const AuditExportQuery = AuditFilterFields.extend({ format: z.enum(["csv", "jsonl"]).default("jsonl") }).superRefine(orderedRange);
export type AuditExportQuery = z.infer<typeof AuditExportQuery>;
