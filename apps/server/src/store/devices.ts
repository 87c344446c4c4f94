/** Devices (installations) of a principal, known by the client id they send with writes. */
import { and, eq, sql } from "drizzle-orm";
import { LRUCache } from "lru-cache";
import type { Db } from "../db/database.js";
import { devices } from "../db/schema.js";

/** How stale `last_seen_at` may get before a write refreshes it (writes cost a WAL flush). */
const REFRESH_AFTER_MS = 60_000;

/**
 * Devices this app instance saw as fresh (`last_seen_at` younger than {@link REFRESH_AFTER_MS}),
 * until they stop being fresh: a write from such a device needs no database round trip to know
 * that nothing is to refresh. One per app instance; holds at most `max` devices (default 10,000),
 * the least recently used dropped beyond it. Nothing goes wrong when it forgets a device (the
 * next write reads the row again), and an entry never outlives the freshness it stands for.
 */
export class DeviceSightings {
  readonly #fresh: LRUCache<string, true>;

  constructor(max = 10_000) {
    this.#fresh = new LRUCache({ max, ttl: REFRESH_AFTER_MS, ttlAutopurge: false });
  }

  /** Whether `clientId` of `principalId` is known fresh. */
  isFresh(principalId: string, clientId: string): boolean {
    return this.#fresh.get(`${principalId}\u0000${clientId}`) === true;
  }

  /** Records that the device's `last_seen_at` is `ageMs` old (0: just written). */
  remember(principalId: string, clientId: string, ageMs: number): void {
    const ttl = REFRESH_AFTER_MS - Math.max(0, ageMs);
    if (ttl > 0) this.#fresh.set(`${principalId}\u0000${clientId}`, true, { ttl });
  }
}

/**
 * Records that `clientId` of `principalId` was seen now (first sighting creates the device): at
 * most one refresh of `last_seen_at` per {@link REFRESH_AFTER_MS}; with `sightings`, a device this
 * instance knows fresh costs no query at all.
 */
export async function touchDevice(db: Db, principalId: string, clientId: string, sightings?: DeviceSightings): Promise<void> {
  if (sightings?.isFresh(principalId, clientId)) return;
  const [known] = await db
    .select({ lastSeenAt: devices.lastSeenAt })
    .from(devices)
    .where(and(eq(devices.principalId, principalId), eq(devices.clientId, clientId)));
  const age = known ? Date.now() - known.lastSeenAt.getTime() : Infinity;
  if (age < REFRESH_AFTER_MS) {
    sightings?.remember(principalId, clientId, age);
    return;
  }
  await db
    .insert(devices)
    .values({ principalId, clientId })
    .onConflictDoUpdate({ target: [devices.principalId, devices.clientId], set: { lastSeenAt: sql`now()` } });
  sightings?.remember(principalId, clientId, 0);
}
