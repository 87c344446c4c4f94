/**
 * Fake key blocks for private-key rule examples: armored text with random base64 bodies, built at
 * run time so no source file holds a key-looking literal. Not valid keys (nothing parses them).
 */
import { ALPHABETS, randomChars } from "../fakes.js";

/** `lines` lines of `width` random base64 characters joined by `newline` ("\n" or a literal "\\n"). */
export function fakeBase64Lines(seed: number, lines = 4, width = 64, newline = "\n", head = ""): string {
  const out: string[] = [];
  for (let i = 0; i < lines; i++) {
    const line = randomChars(width, seed + i, ALPHABETS.base64);
    out.push(i === 0 ? (head + line).slice(0, width) : line);
  }
  return out.join(newline);
}

/** An armored block `-----BEGIN <label>-----` … `-----END <label>-----` with a random body. */
export function fakePemBlock(label: string, seed: number, options: { newline?: string; headers?: string[]; head?: string } = {}): string {
  const nl = options.newline ?? "\n";
  const headers = options.headers?.length ? options.headers.join(nl) + nl + nl : "";
  return `-----BEGIN ${label}-----${nl}${headers}${fakeBase64Lines(seed, 4, 64, nl, options.head)}${nl}-----END ${label}-----`;
}
