/**
 * Keyed fingerprints of secret values: HMAC-SHA-256(key, value), hex, truncated to
 * {@link FINGERPRINT_HEX_LENGTH} characters (128 bits). The same secret gives the same fingerprint
 * under one key, so it can be allowlisted or recognised without being stored; without the key a
 * fingerprint does not help guess the value.
 *
 * A teammem team's key is 64 hex characters, and the HMAC key is that TEXT (its 64 ASCII bytes),
 * not the 32 bytes it spells: so the server (its re-scan and the audit log), every client of the
 * team and `teammem-scan --key-file` give one value one fingerprint ({@link loadFingerprintKey}
 * returns the text for that reason).
 */
import { createHmac, randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { NOT_REGULAR, readSmallFile } from "./small-file.js";

export const FINGERPRINT_HEX_LENGTH = 32;

/** Key used when the caller gives none: fingerprints then only compare within this code base. */
export const DEFAULT_FINGERPRINT_KEY = "teammem-default-fingerprint-key";

/** Fingerprint of `value` under `key` (string = its UTF-8 bytes, or raw bytes): 32 lower-case hex chars. */
export function fingerprint(value: string, key: string | Uint8Array = DEFAULT_FINGERPRINT_KEY): string {
  return createHmac("sha256", key).update(value, "utf8").digest("hex").slice(0, FINGERPRINT_HEX_LENGTH);
}

/** Stable codes of {@link FingerprintKeyError}; a code never changes meaning, messages may be reworded. */
export type FingerprintKeyErrorCode =
  /** A key file named explicitly (`--key-file`) does not exist: only the default key is created on first use. */
  | "key_file_missing"
  /** The path is a folder (or another non-file), not a key file. */
  | "key_file_not_a_file"
  /** The key file, or its folder, cannot be read or created (permissions, read-only file system, ...). */
  | "key_file_unreadable"
  /** The file exists but holds no key: empty, binary, not hex, not 64 characters, too large, JSON without `fingerprintKey.key`. */
  | "key_file_invalid";

/** A key file is read up to this size (a team's scan-policy.json with its allowed fingerprints fits many times over). */
export const MAX_KEY_FILE_BYTES = 1024 * 1024;

const KEY_FORMS = "expected 64 hex characters, or a teammem scan-policy.json";

/**
 * The key in a key file's bytes: 64 hex characters (surrounding whitespace ignored), or JSON holding
 * `fingerprintKey.key` (the teammem client's `.teammem/scan-policy.json`, the server's
 * `GET /v1/team/scan-policy` answer). Returns the key text in lower case.
 * @throws FingerprintKeyError `key_file_invalid` saying what is wrong, never quoting the file.
 */
function keyOf(path: string, bytes: Buffer): string {
  const invalid = (what: string) => new FingerprintKeyError("key_file_invalid", path, `${what} (${KEY_FORMS})`);
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw invalid("binary, not a key file: not UTF-8 text");
  }
  if (text.includes("\0")) throw invalid("binary, not a key file: a NUL byte");
  text = text.trim();
  if (text === "") throw invalid("empty, no key in it");
  if (text.startsWith("{")) {
    let key: unknown;
    try {
      key = (JSON.parse(text) as { fingerprintKey?: { key?: unknown } } | null)?.fingerprintKey?.key;
    } catch {
      throw invalid("starts like JSON but is not valid JSON");
    }
    if (typeof key !== "string" || !/^[0-9a-f]{64}$/i.test(key)) throw invalid("JSON without a fingerprintKey.key of 64 hex characters");
    return key.toLowerCase();
  }
  if (!/^[0-9a-f]*$/i.test(text)) throw invalid("not a fingerprint key: a character other than 0-9, a-f");
  if (text.length !== 64) throw invalid(`not a fingerprint key: ${text.length} hex characters`);
  return text.toLowerCase();
}

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
  if (code === NOT_REGULAR || code === "ENXIO") return new FingerprintKeyError("key_file_not_a_file", path, `${(e as { kind?: string }).kind ?? "a socket"}, not a key file (only a regular file is read)`);
  if (code === "EACCES" || code === "EPERM" || code === "EROFS") return new FingerprintKeyError("key_file_unreadable", path, `cannot ${doing} (${code}: permission denied or read-only)`);
  if (code !== undefined && code !== "ENOENT" && code !== "EEXIST") return new FingerprintKeyError("key_file_unreadable", path, `cannot ${doing} (${code})`);
  return e;
}

/**
 * Reads the fingerprint key stored at `path`, creating it (with parent folders, file mode 0600) as
 * 64 hex characters from 32 random bytes when it does not exist. Safe when two processes race to
 * create it (exclusive create; the loser reads the winner's key). The file holds 64 hex characters
 * (a team's key, or one of this installation), or is a teammem client's `.teammem/scan-policy.json`
 * (JSON with `fingerprintKey.key`); at most {@link MAX_KEY_FILE_BYTES} are read.
 * @returns the key as the HMAC key text: 64 lower-case hex characters, used as they are (as the
 *   server and the client use a team's key), so `scan(text, { fingerprintKey })` gives the team's
 *   fingerprints.
 * @throws FingerprintKeyError naming `path` with a stable code: `key_file_invalid` when the file is
 *   not a key (saying why: empty, binary, not hex, wrong length, too large), `key_file_not_a_file`
 *   for a folder, `key_file_unreadable` when it cannot be read or created (EACCES, EROFS, ...).
 */
export function loadFingerprintKey(path: string): string {
  const read = (): string | undefined => {
    let bytes;
    try {
      bytes = readSmallFile(path, MAX_KEY_FILE_BYTES);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw keyIoError(path, e, "read it");
    }
    if (bytes === "too-large") throw new FingerprintKeyError("key_file_invalid", path, `larger than ${MAX_KEY_FILE_BYTES} bytes, not a key file (${KEY_FORMS})`);
    return keyOf(path, bytes);
  };
  const existing = read();
  if (existing) return existing;
  const key = randomBytes(32).toString("hex");
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, key + "\n", { flag: "wx", mode: 0o600 });
    return key;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw keyIoError(path, e, "create it");
    const winner = read();
    if (!winner) throw new FingerprintKeyError("key_file_unreadable", path, "vanished while being created");
    return winner;
  }
}
