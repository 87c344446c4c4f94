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
 * Single-flight: when a team's entry expires, the requests that miss it share one read (two
 * queries) instead of each reading it (every `cacheMs`, all concurrent writers of a team missed
 * together). A read started before `invalidate` is not cached and not handed to later callers.
 */
async function teamPolicy(app: FastifyInstance, opts: TeamPolicyOptions): Promise<void> {
  const keys = new LRUCache<string, TeamScanPolicy>({ max: 10_000, ttl: opts.cacheMs ?? 5000 });
  /** The read in progress per team (at most one). */
  const reading = new Map<string, Promise<TeamScanPolicy>>();
  const read = async (teamId: string): Promise<TeamScanPolicy> => {
    const key = await currentFingerprintKey(app.db, teamId);
    return { key, allowedFingerprints: await approvedFingerprints(app.db, teamId, key.id) };
  };
  const scanPolicy = async (teamId: string): Promise<TeamScanPolicy> => {
    const hit = keys.get(teamId);
    if (hit) return hit;
    const pending = reading.get(teamId);
    if (pending) return pending;
    const started = read(teamId);
    reading.set(teamId, started);
    try {
      const policy = await started;
      if (reading.get(teamId) === started) keys.set(teamId, policy); // not invalidated meanwhile
      return policy;
    } finally {
      if (reading.get(teamId) === started) reading.delete(teamId);
    }
  };
  app.decorate("teamPolicy", {
    fingerprintKey: async (teamId: string) => (await scanPolicy(teamId)).key,
    scanPolicy,
    invalidate: (teamId: string) => {
      keys.delete(teamId);
      reading.delete(teamId);
    },
  } satisfies TeamPolicy);
}

declare module "fastify" {
  interface FastifyInstance {
    teamPolicy: TeamPolicy;
  }
}

export default fp(teamPolicy, { name: "teammem-team-policy" });
