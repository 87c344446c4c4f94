/** Helpers shared by the namespace routes: resolving the caller's namespace, building a write context. */
import type { FastifyInstance, FastifyRequest } from "fastify";
import { LRUCache } from "lru-cache";
import { ErrorBody, type ServerRef } from "@teammem/protocol";
import { Refusal } from "../../errors/refusal.js";
import { ensureNamespace, findNamespace, type NamespaceRow } from "../../store/namespaces.js";
import type { DeviceSightings } from "../../store/devices.js";
import type { WriteContext } from "../../store/write-context.js";

/** Error replies every namespace route may give, for the OpenAPI description. */
export const errorReplies = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody };

/** What a route needs to know of a namespace once it exists (its cursor changes, these never do). */
export type NamespaceRef = Pick<NamespaceRow, "id" | "teamId" | "name">;

/**
 * Namespaces known to exist, by team and name, per app instance: namespaces are never deleted or
 * renamed, so once found, a namespace's id needs no further lookup (saves a query per request).
 * A missing namespace is never cached. Holds at most `max` (default 10,000), dropping the least
 * recently used beyond it; no ttl, since an entry never goes wrong.
 */
export class NamespaceCache {
  readonly #known: LRUCache<string, NamespaceRef>;

  constructor(max = 10_000) {
    this.#known = new LRUCache({ max });
  }

  get(teamId: string, name: string): NamespaceRef | undefined {
    return this.#known.get(`${teamId}/${name}`);
  }

  remember(ns: NamespaceRef): NamespaceRef {
    const ref = { id: ns.id, teamId: ns.teamId, name: ns.name };
    this.#known.set(`${ns.teamId}/${ns.name}`, ref);
    return ref;
  }
}

/**
 * The namespace `name` of the caller's team.
 * @throws Refusal not_found when it does not exist or belongs to another team (indistinguishable).
 */
export async function requireNamespace(app: FastifyInstance, request: FastifyRequest, name: string): Promise<NamespaceRef> {
  const known = app.namespaceCache.get(request.auth.teamId, name);
  if (known) return known;
  const ns = await findNamespace(app.db, request.auth.teamId, name);
  if (!ns) throw new Refusal("not_found", "no namespace of this name in this team");
  return app.namespaceCache.remember(ns);
}

/**
 * The preamble every read route of a namespace shares (routes/namespaces/reads.ts, reconcile.ts):
 * `onRequest` checks the reader role (403 forbidden below it); `namespace(request)` resolves the
 * route's `:namespace` in the caller's team (404 not_found for a name the team lacks).
 */
export function namespaceReader(app: FastifyInstance): {
  onRequest: ReturnType<FastifyInstance["requireRole"]>[];
  namespace: (request: FastifyRequest) => Promise<NamespaceRef>;
} {
  // Every route using it has `params: NamespaceParams` in its schema, validated before the handler.
  return { onRequest: [app.requireRole("reader")], namespace: (request) => requireNamespace(app, request, (request.params as { namespace: string }).namespace) };
}

/** The caller's namespace `name`, created on first write (member and admin only reach here). */
export async function ensureCallerNamespace(app: FastifyInstance, request: FastifyRequest, name: string): Promise<NamespaceRef> {
  const known = app.namespaceCache.get(request.auth.teamId, name);
  if (known) return known;
  return app.namespaceCache.remember(await ensureNamespace(app.db, request.auth.teamId, name));
}

/** The server identity and epoch, as every reply carrying a cursor carries it (`server`). */
export async function serverRef(app: FastifyInstance): Promise<ServerRef> {
  return (await app.serverIdentity.current()).server;
}

/** Who writes where, with the team's current fingerprint key. */
export async function writeContext(app: FastifyInstance, request: FastifyRequest, ns: NamespaceRef, clientId: string | undefined): Promise<WriteContext> {
  const { key, allowedFingerprints } = await app.teamPolicy.scanPolicy(request.auth.teamId);
  return {
    namespace: ns,
    author: { id: request.auth.principalId, name: request.auth.principalName },
    clientId: clientId ?? null,
    limits: app.limits,
    fingerprintKey: key.key,
    fingerprintKeyId: key.id,
    allowedFingerprints,
    notifier: app.changeNotifier,
  };
}

declare module "fastify" {
  interface FastifyInstance {
    namespaceCache: NamespaceCache;
    /** Devices known to have a fresh `last_seen_at` (store/devices.ts). */
    deviceSightings: DeviceSightings;
  }
}
