import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import type { Db } from "./db/database.js";
import { serverSettings } from "./db/schema.js";

/** The server's own keys. Neither is ever logged or sent. */
export interface ServerSecrets {
  /** HS256 key signing every JWT. */
  jwtSecret: string;
  /** HMAC key of scanner fingerprints (so the same secret is recognised without storing it). */
  fingerprintKey: string;
}

const KEYS: Record<keyof ServerSecrets, string> = { jwtSecret: "jwt_secret", fingerprintKey: "fingerprint_key" };

/** Reads setting `key`, creating it with `make()` if absent; safe when several processes race. */
async function getOrCreate(db: Db, key: string, make: () => string): Promise<string> {
  await db.insert(serverSettings).values({ key, value: make() }).onConflictDoNothing();
  const [row] = await db.select({ value: serverSettings.value }).from(serverSettings).where(eq(serverSettings.key, key));
  return row!.value;
}

/**
 * The server's secrets: each one given (from env or options) wins; otherwise it is generated once
 * (32 random bytes, base64url) and kept in the `server_settings` table, so CLI commands and every
 * server process on the same database agree. The database must be migrated.
 */
export async function loadServerSecrets(db: Db, given: Partial<ServerSecrets> = {}): Promise<ServerSecrets> {
  const random = () => randomBytes(32).toString("base64url");
  return {
    jwtSecret: given.jwtSecret ?? (await getOrCreate(db, KEYS.jwtSecret, random)),
    fingerprintKey: given.fingerprintKey ?? (await getOrCreate(db, KEYS.fingerprintKey, random)),
  };
}
