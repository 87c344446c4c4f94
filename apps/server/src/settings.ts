import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import type { Db } from "./db/database.js";
import { serverSettings } from "./db/schema.js";

/**
 * The server's own keys; never logged or sent. (Fingerprint keys are per team: see
 * policy/fingerprint-keys.ts.)
 */
export interface ServerSecrets {
  /** HS256 key signing every JWT. */
  jwtSecret: string;
}

const KEYS: Record<keyof ServerSecrets, string> = { jwtSecret: "jwt_secret" };

/** Reads setting `key`, creating it with `make()` if absent; safe when several processes race. */
async function getOrCreate(db: Db, key: string, make: () => string): Promise<string> {
  await db.insert(serverSettings).values({ key, value: make() }).onConflictDoNothing();
  const [row] = await db.select({ value: serverSettings.value }).from(serverSettings).where(eq(serverSettings.key, key));
  return row!.value;
}

/**
 * The server's secrets: one given (from env or options) wins; otherwise it is generated once
 * (32 random bytes, base64url) and kept in the `server_settings` table, so CLI commands and every
 * server process on the same database agree. The database must be migrated.
 */
export async function loadServerSecrets(db: Db, given: Partial<ServerSecrets> = {}): Promise<ServerSecrets> {
  const random = () => randomBytes(32).toString("base64url");
  return {
    jwtSecret: given.jwtSecret ?? (await getOrCreate(db, KEYS.jwtSecret, random)),
  };
}
