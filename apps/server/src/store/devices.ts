/** Devices (installations) of a principal, known by the client id they send with writes. */
import { sql } from "drizzle-orm";
import type { Db } from "../db/database.js";
import { devices } from "../db/schema.js";

/** Records that `clientId` of `principalId` was seen now (first sighting creates the device). */
export async function touchDevice(db: Db, principalId: string, clientId: string): Promise<void> {
  await db
    .insert(devices)
    .values({ principalId, clientId })
    .onConflictDoUpdate({ target: [devices.principalId, devices.clientId], set: { lastSeenAt: sql`now()` } });
}
