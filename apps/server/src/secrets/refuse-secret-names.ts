/**
 * A preHandler for the namespace routes: a write whose namespace name (`:namespace`, created on
 * first use), `clientId` or an `opId` holds a credential is refused with 422 `secret_detected`
 * (`details: { field, findings }`, positions in that string) before anything is stored, and an
 * `upload_rejected` audit event records the redacted name. Reads pass (a name that was never
 * stored cannot be found).
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import { recordAuditEvent } from "../audit/events.js";
import { Refusal } from "../errors/refusal.js";
import { findSecretsInName, redactSecrets, ruleList } from "./names.js";

export async function refuseSecretNames(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
  if (request.method === "GET" || request.method === "HEAD" || !request.auth) return;
  const app = request.server;
  const namespace = (request.params as { namespace?: unknown } | undefined)?.namespace;
  const body = request.body as { clientId?: unknown; opId?: unknown; operations?: unknown } | undefined;
  const clientId = body?.clientId;
  // opIds are stored and shown in history: a credential must not ride in one either.
  const opIds = [body?.opId, ...(Array.isArray(body?.operations) ? body.operations.map((op: { opId?: unknown }) => op?.opId) : [])];
  const fields: [string, unknown][] = [
    ["namespace", namespace],
    ["clientId", clientId],
    ...opIds.map((opId): [string, unknown] => ["opId", opId]),
  ];
  const { key, id: fingerprintKeyId } = await app.teamPolicy.fingerprintKey(request.auth.teamId);
  for (const [field, value] of fields) {
    if (typeof value !== "string") continue;
    const found = findSecretsInName(value, key);
    if (found.length === 0) continue;
    await recordAuditEvent(app.db, {
      teamId: request.auth.teamId,
      actor: { id: request.auth.principalId, name: request.auth.principalName },
      kind: "upload_rejected",
      namespace: typeof namespace === "string" ? redactSecrets(namespace) : null,
      path: null,
      clientId: typeof clientId === "string" ? redactSecrets(clientId) : null,
      findings: found,
      fingerprintKeyId,
    });
    throw new Refusal("secret_detected", `the ${field} holds a credential (${ruleList(found)}); choose another ${field}`, {
      field,
      findings: found.map((f) => ({ ruleId: f.ruleId, label: f.label, line: f.line, column: f.column })),
    });
  }
}
