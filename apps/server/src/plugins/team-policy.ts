import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { LRUCache } from "lru-cache";
import { currentFingerprintKey, type FingerprintKey } from "../policy/fingerprint-keys.js";

export interface TeamPolicyOptions {
  /** How long a team's current fingerprint key is trusted after being read, in ms. Default 5000. */
  cacheMs?: number;
}

/** A team's scan settings as this instance knows them. */
export interface TeamPolicy {
  /** The team's current fingerprint key (created on first use); cached for `cacheMs`. */
  fingerprintKey(teamId: string): Promise<FingerprintKey>;
  /** Drops what is cached of a team (after a change made through this instance). */
  invalidate(teamId: string): void;
}

/**
 * Decorates `app.teamPolicy`. A rotation made by another process (CLI, another instance) takes
 * effect here within `cacheMs`; one made through this instance at once.
 */
async function teamPolicy(app: FastifyInstance, opts: TeamPolicyOptions): Promise<void> {
  const keys = new LRUCache<string, FingerprintKey>({ max: 10_000, ttl: opts.cacheMs ?? 5000 });
  app.decorate("teamPolicy", {
    fingerprintKey: async (teamId: string) => {
      const hit = keys.get(teamId);
      if (hit) return hit;
      const key = await currentFingerprintKey(app.db, teamId);
      keys.set(teamId, key);
      return key;
    },
    invalidate: (teamId: string) => void keys.delete(teamId),
  } satisfies TeamPolicy);
}

declare module "fastify" {
  interface FastifyInstance {
    teamPolicy: TeamPolicy;
  }
}

export default fp(teamPolicy, { name: "teammem-team-policy" });
