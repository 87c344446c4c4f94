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

/** Stable codes of {@link FingerprintKeyError}; a code never changes meaning, messages may be reworded. */
export type FingerprintKeyErrorCode =
  /** The path is a folder (or another non-file), not a key file. */
  | "key_file_not_a_file"
  /** The key file, or its folder, cannot be read or created (permissions, read-only file system, ...). */
  | "key_file_unreadable"
  /** The file exists but does not hold 64 hex characters. */
  | "key_file_invalid";

/** A fingerprint key that cannot be used: `code` is stable, `path` the key file, the message says what to do. */
export class FingerprintKeyError extends Error {
  override readonly name = "FingerprintKeyError";
  constructor(
    readonly code: FingerprintKeyErrorCode,
    readonly path: string,
    what: string,
  ) {
    super(`fingerprint key ${path}: ${what} (${code}); name a readable key file with --key-file or $TEAMMEM_SCAN_KEY_FILE, or unset both to use the default key`);
  }
}

/** The {@link FingerprintKeyError} for an I/O error `e` on key file `path`; other errors are returned as they are. */
function keyIoError(path: string, e: unknown, doing: string): unknown {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === "EISDIR" || code === "ENOTDIR") return new FingerprintKeyError("key_file_not_a_file", path, code === "EISDIR" ? "a folder, not a key file" : "a part of the path is a file, not a folder");
  if (code === "EACCES" || code === "EPERM" || code === "EROFS") return new FingerprintKeyError("key_file_unreadable", path, `cannot ${doing} (${code}: permission denied or read-only)`);
  if (code !== undefined && code !== "ENOENT" && code !== "EEXIST") return new FingerprintKeyError("key_file_unreadable", path, `cannot ${doing} (${code})`);
  return e;
}

/**
 * Reads the per-installation fingerprint key stored at `path` (64 hex chars = 32 bytes), creating
 * it (with parent folders, file mode 0600) from 32 random bytes when it does not exist. Safe when two
 * processes race to create it (exclusive create; the loser reads the winner's key).
 * Returns the key bytes.
 * @throws FingerprintKeyError naming `path` with a stable code: `key_file_invalid` when the file is
 *   not a key, `key_file_not_a_file` for a folder, `key_file_unreadable` when it cannot be read or
 *   created (EACCES, EROFS, ...).
 */
export function loadFingerprintKey(path: string): Buffer {
  const read = (): Buffer | undefined => {
    let hex: string;
    try {
      hex = readFileSync(path, "utf8").trim();
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw keyIoError(path, e, "read it");
    }
    if (!/^[0-9a-f]{64}$/i.test(hex)) throw new FingerprintKeyError("key_file_invalid", path, "not a fingerprint key (expected 64 hex characters)");
    return Buffer.from(hex, "hex");
  };
  const existing = read();
  if (existing) return existing;
  const key = randomBytes(32);
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, key.toString("hex") + "\n", { flag: "wx", mode: 0o600 });
    return key;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw keyIoError(path, e, "create it");
    const winner = read();
    if (!winner) throw new FingerprintKeyError("key_file_unreadable", path, "vanished while being created");
    return winner;
  }
}
