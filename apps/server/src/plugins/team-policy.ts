import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { LRUCache } from "lru-cache";
import { approvedFingerprints } from "../bypasses/store.js";
import { currentFingerprintKey, type FingerprintKey } from "../policy/fingerprint-keys.js";

export interface TeamPolicyOptions {
  /** How long a team's current fingerprint key and allowed fingerprints are trusted after being read, in ms. Default 5000. */
  cacheMs?: number;
}

/** What a team scans with: its current key and the fingerprints its approved bypasses let through. */
export interface TeamScanPolicy {
  readonly key: FingerprintKey;
  /** Fingerprints (made with `key`) of the team's approved bypasses. */
  readonly allowedFingerprints: readonly string[];
}

/** A team's scan settings as this instance knows them. */
export interface TeamPolicy {
  /** The team's current fingerprint key (created on first use); cached for `cacheMs`. */
  fingerprintKey(teamId: string): Promise<FingerprintKey>;
  /** The key and the allowed fingerprints; cached for `cacheMs`. */
  scanPolicy(teamId: string): Promise<TeamScanPolicy>;
  /** Drops what is cached of a team (after a change made through this instance). */
  invalidate(teamId: string): void;
}

/**
 * Decorates `app.teamPolicy`. A rotation or bypass decision made by another process (CLI, another
 * instance) takes effect here within `cacheMs`; one made through this instance at once.
 */
async function teamPolicy(app: FastifyInstance, opts: TeamPolicyOptions): Promise<void> {
  const keys = new LRUCache<string, TeamScanPolicy>({ max: 10_000, ttl: opts.cacheMs ?? 5000 });
  const scanPolicy = async (teamId: string): Promise<TeamScanPolicy> => {
    const hit = keys.get(teamId);
    if (hit) return hit;
    const key = await currentFingerprintKey(app.db, teamId);
    const policy = { key, allowedFingerprints: await approvedFingerprints(app.db, teamId, key.id) };
    keys.set(teamId, policy);
    return policy;
  };
  app.decorate("teamPolicy", {
    fingerprintKey: async (teamId: string) => (await scanPolicy(teamId)).key,
    scanPolicy,
    invalidate: (teamId: string) => void keys.delete(teamId),
  } satisfies TeamPolicy);
}

declare module "fastify" {
  interface FastifyInstance {
    teamPolicy: TeamPolicy;
  }
}

export default fp(teamPolicy, { name: "teammem-team-policy" });
