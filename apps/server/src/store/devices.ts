/** Devices (installations) of a principal, known by the client id they send with writes. */
import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../db/database.js";
import { devices } from "../db/schema.js";

/** How stale `last_seen_at` may get before a write refreshes it (writes cost a WAL flush). */
const REFRESH_AFTER_MS = 60_000;

/** Records that `clientId` of `principalId` was seen now (first sighting creates the device). */
export async function touchDevice(db: Db, principalId: string, clientId: string): Promise<void> {
  const [known] = await db
    .select({ lastSeenAt: devices.lastSeenAt })
    .from(devices)
    .where(and(eq(devices.principalId, principalId), eq(devices.clientId, clientId)));
  if (known && Date.now() - known.lastSeenAt.getTime() < REFRESH_AFTER_MS) return;
  await db
    .insert(devices)
    .values({ principalId, clientId })
    .onConflictDoUpdate({ target: [devices.principalId, devices.clientId], set: { lastSeenAt: sql`now()` } });
}
