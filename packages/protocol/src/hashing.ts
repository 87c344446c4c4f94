import { createHash } from "node:crypto";

/** Lowercase hex SHA-256 of the UTF-8 bytes of `text`; the `sha256` of an entry version. */
export function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}
