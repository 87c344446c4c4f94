import { hash } from "node:crypto";

/**
 * Lowercase hex SHA-256 of the UTF-8 bytes of `text`; the `sha256` of an entry version.
 * One-shot `crypto.hash` (Node >= 20.12; the project needs 20.19): the same digest as
 * `createHash("sha256").update(text, "utf8").digest("hex")` without a Hash object per call
 * (1 KB: ~1.0 instead of ~1.7 µs; 220 B: ~0.4 instead of ~0.9 µs, Node 20), and the write path
 * hashes twice per operation (the request hash and the content).
 */
export function sha256Hex(text: string): string {
  return hash("sha256", text, "hex");
}
