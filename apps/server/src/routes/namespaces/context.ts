/** Helpers shared by the namespace routes: resolving the caller's namespace, building a write context. */
import type { FastifyInstance, FastifyRequest } from "fastify";
import { ErrorBody } from "@teammem/protocol";
import { ApiError } from "../../errors.js";
import { ensureNamespace, findNamespace, type NamespaceRow } from "../../store/namespaces.js";
import type { WriteContext } from "../../store/write-context.js";

/** Error replies every namespace route may give, for the OpenAPI description. */
export const errorReplies = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody };

/**
 * The namespace `name` of the caller's team.
 * @throws ApiError not_found when it does not exist or belongs to another team (indistinguishable).
 */
export async function requireNamespace(app: FastifyInstance, request: FastifyRequest, name: string): Promise<NamespaceRow> {
  const ns = await findNamespace(app.db, request.auth.teamId, name);
  if (!ns) throw new ApiError("not_found", `namespace ${name} not found`);
  return ns;
}

/** The caller's namespace `name`, created on first write (member and admin only reach here). */
export function ensureCallerNamespace(app: FastifyInstance, request: FastifyRequest, name: string) {
  return ensureNamespace(app.db, request.auth.teamId, name);
}

export function writeContext(app: FastifyInstance, request: FastifyRequest, ns: NamespaceRow, clientId: string | undefined): WriteContext {
  return {
    namespace: ns,
    author: { id: request.auth.principalId, name: request.auth.principalName },
    clientId: clientId ?? null,
    limits: app.limits,
    fingerprintKey: app.fingerprintKey,
  };
}
