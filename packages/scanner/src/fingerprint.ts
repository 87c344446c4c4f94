/**
 * Keyed fingerprints of secret values: HMAC-SHA-256(key, value), hex, truncated to
 * {@link FINGERPRINT_HEX_LENGTH} characters (128 bits). The same secret gives the same fingerprint
 * under one installation's key, so it can be allowlisted or recognised without being stored; without
 * the key a fingerprint does not help guess the value.
 */
import { createHmac, randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

export const FINGERPRINT_HEX_LENGTH = 32;

/** Key used when the caller gives none: fingerprints then only compare within this code base. */
export const DEFAULT_FINGERPRINT_KEY = "teammem-default-fingerprint-key";

/** Fingerprint of `value` under `key` (string = its UTF-8 bytes, or raw bytes): 32 lower-case hex chars. */
export function fingerprint(value: string, key: string | Uint8Array = DEFAULT_FINGERPRINT_KEY): string {
  return createHmac("sha256", key).update(value, "utf8").digest("hex").slice(0, FINGERPRINT_HEX_LENGTH);
}

/**
 * Reads the per-installation fingerprint key stored at `path` (64 hex chars = 32 bytes), creating
 * it (with parent folders, file mode 0600) from 32 random bytes when it does not exist. Safe when two
 * processes race to create it (exclusive create; the loser reads the winner's key).
 * Returns the key bytes. Throws an Error naming `path` when the file exists but is not a key, or on
 * I/O errors other than "not found".
 */
export function loadFingerprintKey(path: string): Buffer {
  const read = (): Buffer | undefined => {
    try {
      const hex = readFileSync(path, "utf8").trim();
      if (!/^[0-9a-f]{64}$/i.test(hex)) throw new Error(`${path}: not a fingerprint key (expected 64 hex characters)`);
      return Buffer.from(hex, "hex");
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw e;
    }
  };
  const existing = read();
  if (existing) return existing;
  mkdirSync(dirname(path), { recursive: true });
  const key = randomBytes(32);
  try {
    writeFileSync(path, key.toString("hex") + "\n", { flag: "wx", mode: 0o600 });
    return key;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    const winner = read();
    if (!winner) throw new Error(`${path}: fingerprint key vanished while being created`);
    return winner;
  }
}
