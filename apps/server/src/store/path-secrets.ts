/**
 * The server-side scan of an entry PATH (a file may be named after a credential): a hit refuses
 * the write with `secret_detected` (findings at line 1, column in the path) and records an
 * `upload_rejected` audit event holding the REDACTED path, never the path itself. Such a refusal
 * depends on the request alone, so it is never stored for replay (nothing keeps the path).
 */
import { recordAuditEvent } from "../audit/events.js";
import type { Db } from "../db/database.js";
import type { Refusal } from "../errors/refusal.js";
import { findSecretsInName, redactSecrets, ruleList } from "../secrets/names.js";
import { checkPath, SecretRefusal, type PathUse } from "./validate-content.js";
import type { WriteContext } from "./write-context.js";

/** A refusal of a path holding a credential; {@link auditPathSecret} records `redactedPath`. */
class PathSecretRefusal extends SecretRefusal {
  constructor(
    message: string,
    audit: SecretRefusal["audit"],
    readonly redactedPath: string,
  ) {
    super(message, { where: "path" }, audit);
  }
}

/** The `secret_detected` refusal of `path` (already NFC-checked), or null when the path is clean. */
function scanPath(ctx: Pick<WriteContext, "fingerprintKey">, path: string): PathSecretRefusal | null {
  const found = findSecretsInName(path, ctx.fingerprintKey);
  if (found.length === 0) return null;
  return new PathSecretRefusal(`the path holds a credential (${ruleList(found)}); rename the file and write again`, found, redactSecrets(path));
}

/** {@link checkPath}, then {@link scanPath}: the NFC path, or the refusal (`invalid_path` or `secret_detected`). */
export function checkWritePath(ctx: Pick<WriteContext, "fingerprintKey">, rawPath: string, use: PathUse = "new"): { path: string } | { refusal: Refusal } {
  const checked = checkPath(rawPath, use);
  if ("refusal" in checked) return checked;
  const secret = scanPath(ctx, checked.path);
  return secret ? { refusal: secret } : checked;
}

/** Records the `upload_rejected` audit event of a path refusal (no-op for any other refusal). */
export async function auditPathSecret(db: Db, ctx: WriteContext, refusal: Refusal): Promise<void> {
  if (!(refusal instanceof PathSecretRefusal)) return;
  await recordAuditEvent(db, {
    teamId: ctx.namespace.teamId,
    actor: ctx.author,
    kind: "upload_rejected",
    namespace: ctx.namespace.name,
    path: refusal.redactedPath,
    clientId: ctx.clientId,
    findings: refusal.audit,
    fingerprintKeyId: ctx.fingerprintKeyId,
  });
}
