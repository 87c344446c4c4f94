/**
 * Checks one incoming write that needs no database: path rules, UTF-8 well-formedness, size, and
 * the server-side re-scan for secrets; and the audit event of a secret hit (metadata only).
 */
import { checkEntryPath, checkExistingEntryPath, type Operation } from "@teammem/protocol";
import { scan } from "@teammem/scanner";
import { recordAuditEvent } from "../audit/events.js";
import type { Db, Tx } from "../db/database.js";
import { illFormedItem, type IllFormedItem } from "../errors/ill-formed-item.js";
import { Refusal } from "../errors/refusal.js";
import type { WriteContext } from "./write-context.js";

/**
 * The `invalid_utf8` rejection of a batch operation that holds a string which is not well-formed
 * UTF-16 (a lone surrogate, which UTF-8 cannot encode: the database would refuse or alter it), as
 * the request validator marked it (http/validator.ts: `details.field` names the operation's field,
 * `path`, `renameFrom`, `content`...), with the opId and path as sent; null for any other operation.
 */
export function checkWellFormed(op: Operation): IllFormedItem | null {
  return illFormedItem(op) ?? null;
}

/**
 * How a path is used: `new` names an entry being written (every path rule); `existing` names an
 * entry that may already be stored (a read, a delete, the old name of a rename), checked by the
 * rules minus the later invisible-character ones, so an entry stored before them stays reachable.
 */
export type PathUse = "new" | "existing";

/** Checks `rawPath` for `use`; @returns the NFC path or the refusal (`invalid_path`, details `{ rule }`). */
export function checkPath(rawPath: string, use: PathUse = "new"): { path: string } | { refusal: Refusal } {
  const checked = use === "new" ? checkEntryPath(rawPath) : checkExistingEntryPath(rawPath);
  if (!checked.ok) return { refusal: new Refusal("invalid_path", checked.message, { rule: checked.rule }) };
  return { path: checked.path };
}

/** Scanner findings with their keyed fingerprints: for the audit log only, never for a reply. */
export type AuditedFindings = { ruleId: string; label: string; line: number; column: number; fingerprint: string }[];

/**
 * A `secret_detected` refusal; `audit` (with keyed fingerprints) is what its audit event records
 * and never goes into a reply ({@link Refusal.toBody} leaves it out).
 */
export class SecretRefusal extends Refusal {
  constructor(
    message: string,
    details: Record<string, unknown> | undefined,
    readonly audit: AuditedFindings,
  ) {
    super("secret_detected", message, details, audit.map((f) => ({ ruleId: f.ruleId, label: f.label, line: f.line, column: f.column })));
  }
}

/**
 * Checks content that is about to be stored (well-formed already: every request's schema refuses a
 * lone surrogate, http/validator.ts): `invalid_request` (NUL character),
 * `entry_too_large` (details `{ limit, value }` in UTF-8 bytes), `secret_detected` (findings: rule
 * and position only; a {@link SecretRefusal} carries the fingerprints for {@link auditSecretRefusal}).
 * @returns null when the content may be stored.
 */
export function checkContent(ctx: WriteContext, content: string): Refusal | null {
  // PostgreSQL text cannot hold NUL; a text memory file has no reason to.
  if (content.includes("\u0000")) return new Refusal("invalid_request", "content must be text without NUL characters", { reason: "nul_character" });
  const bytes = Buffer.byteLength(content, "utf8");
  if (bytes > ctx.limits.maxEntryBytes) {
    return new Refusal("entry_too_large", `content is ${bytes} UTF-8 bytes, the limit is ${ctx.limits.maxEntryBytes}`, {
      limit: ctx.limits.maxEntryBytes,
      value: bytes,
    });
  }
  const found = scan(content, { fingerprintKey: ctx.fingerprintKey, allowFingerprints: ctx.allowedFingerprints, allowMarker: false });
  if (found.length === 0) return null;
  const rules = [...new Set(found.map((f) => f.ruleId))].join(", ");
  return new SecretRefusal(
    `content holds ${found.length} credential(s) (${rules}); remove them and write again`,
    undefined,
    found.map((f) => ({ ruleId: f.ruleId, label: f.label, line: f.line, column: f.column, fingerprint: f.fingerprint })),
  );
}

/** Records the `upload_rejected` audit event of a `secret_detected` refusal (metadata only), in `db`'s transaction when given one. */
export async function auditSecretRefusal(db: Db | Tx, ctx: WriteContext, path: string, findings: AuditedFindings): Promise<void> {
  await recordAuditEvent(db, {
    teamId: ctx.namespace.teamId,
    actor: ctx.author,
    kind: "upload_rejected",
    namespace: ctx.namespace.name,
    path,
    clientId: ctx.clientId,
    findings,
    fingerprintKeyId: ctx.fingerprintKeyId,
  });
}
