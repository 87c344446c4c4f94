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

/** Shortest HS256 key accepted, in characters: JWT_SECRET's rule, also for a stored or imported key. */
export const MIN_JWT_SECRET_LENGTH = 32;

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
 * @throws Error when no key is given and the stored one is shorter than
 *   {@link MIN_JWT_SECRET_LENGTH} characters (written by hand or by an older import): tokens
 *   signed with it could be brute-forced, so nothing starts with it.
 */
export async function loadServerSecrets(db: Db, given: Partial<ServerSecrets> = {}): Promise<ServerSecrets> {
  const random = () => randomBytes(32).toString("base64url");
  const jwtSecret = given.jwtSecret ?? (await getOrCreate(db, KEYS.jwtSecret, random));
  if (jwtSecret.length < MIN_JWT_SECRET_LENGTH) {
    throw new Error(
      `the JWT signing key stored in the database (server_settings jwt_secret) is ${jwtSecret.length} characters, shorter than ${MIN_JWT_SECRET_LENGTH}: ` +
        `set JWT_SECRET (at least ${MIN_JWT_SECRET_LENGTH} characters; tokens issued before must then be issued again), or restore a backup with a good key`,
    );
  }
  return { jwtSecret };
}
