/**
 * Team fingerprint keys: the HMAC key a team's clients and the server fingerprint secrets with
 * (`scan(text, { fingerprintKey })`), so one value has one fingerprint everywhere in a team and
 * unrelated ones across teams. Keys are numbered per team (1, 2, ...); the highest is current.
 * A key is 32 random bytes as 64 hex characters, used as the key string as is.
 */
import { randomBytes } from "node:crypto";
import { desc, eq } from "drizzle-orm";
import { recordAuditEvent, type Actor } from "../audit/events.js";
import type { Db, Tx } from "../db/database.js";
import { teamFingerprintKeys, teams } from "../db/schema.js";

export interface FingerprintKey {
  /** 1 for a team's first key, +1 per rotation. */
  readonly id: number;
  /** 64 lower-case hex characters. */
  readonly key: string;
}

const newKey = (): string => randomBytes(32).toString("hex");

/** The team's current key, creating key 1 when the team has none yet (safe when callers race). */
export async function currentFingerprintKey(db: Db | Tx, teamId: string): Promise<FingerprintKey> {
  const read = async () =>
    (
      await db
        .select({ id: teamFingerprintKeys.keyId, key: teamFingerprintKeys.key })
        .from(teamFingerprintKeys)
        .where(eq(teamFingerprintKeys.teamId, teamId))
        .orderBy(desc(teamFingerprintKeys.keyId))
        .limit(1)
    )[0];
  const found = await read();
  if (found) return found;
  await db.insert(teamFingerprintKeys).values({ teamId, keyId: 1, key: newKey() }).onConflictDoNothing();
  return (await read())!;
}

/**
 * Makes a new current key for the team (id = previous + 1) and records its
 * `fingerprint_key_rotated` event by `actor`, in one transaction (both commit or neither).
 * Fingerprints made with an older key no longer match new ones: the team's approved bypasses of
 * older keys stop applying.
 * @returns the new key.
 */
export async function rotateFingerprintKey(db: Db, teamId: string, actor: Actor): Promise<FingerprintKey> {
  return db.transaction(async (tx) => {
    // Rotations of one team run one after the other (the team row is their lock).
    await tx.select({ id: teams.id }).from(teams).where(eq(teams.id, teamId)).for("update");
    const current = await currentFingerprintKey(tx, teamId);
    const [row] = await tx
      .insert(teamFingerprintKeys)
      .values({ teamId, keyId: current.id + 1, key: newKey() })
      .returning({ id: teamFingerprintKeys.keyId, key: teamFingerprintKeys.key });
    await recordAuditEvent(tx, { teamId, actor, kind: "fingerprint_key_rotated", fingerprintKeyId: row!.id });
    return row!;
  });
}
