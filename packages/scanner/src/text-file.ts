/**
 * Bytes of a file → the text to scan, or why it cannot be scanned. Shared by the `teammem-scan` CLI
 * and the teammem client, so both read a file alike and "no findings" never means "not looked at".
 *
 * - UTF-16 with a byte order mark (`FF FE` little-endian, `FE FF` big-endian; Windows tools such as
 *   PowerShell's `Out-File` and Notepad write these) is decoded, without the mark.
 * - Other input is UTF-8; a UTF-8 byte order mark (`EF BB BF`) is removed, as UTF-16's is, so it
 *   counts as no column (editors show none).
 * - A NUL byte in the first 8 KiB (git's heuristic) without a UTF-16 mark: binary, not text. So is
 *   UTF-16 with an odd number of bytes, and a file with a UTF-16 mark whose first 8 KiB decode to a
 *   NUL character: UTF-32 (its little-endian mark `FF FE 00 00` starts like UTF-16's) or binary data
 *   that happens to start with `FF FE`. Read as UTF-16, its text would be every other character
 *   with NULs between, so a token in it would never be found and "no findings" would be wrong.
 */

/** Largest file the CLI reads (bytes); a larger one is reported as not scanned. */
export const MAX_SCAN_FILE_BYTES = 64 * 1024 * 1024;

export type FileText =
  | { readonly kind: "text"; readonly text: string; readonly encoding: "utf-8" | "utf-16le" | "utf-16be" }
  | { readonly kind: "not-text"; readonly reason: string };

/** Bytes at the start of a file looked at for NULs (git's heuristic); for UTF-16, NUL characters in as many bytes. */
const SNIFF_BYTES = 8192;

/**
 * The text of a UTF-16 file with a byte order mark (`FF FE` or `FE FF`), without the mark; undefined
 * when `bytes` does not start with one, has an odd length, or its first 8 KiB decode to a NUL
 * character (UTF-32, or binary data: not UTF-16 text), or when the decoded text holds a code unit
 * no UTF-16 text file holds (binary data that happens to start FF FE): a lone surrogate, a
 * private-use character (U+E000-U+F8FF), a noncharacter U+FFFE/U+FFFF, or a C0 control other than
 * tab, line feed, vertical tab, form feed, carriage return and escape.
 */
export function decodeUtf16WithBom(bytes: Uint8Array): { text: string; encoding: "utf-16le" | "utf-16be" } | undefined {
  if (bytes.length < 2 || bytes.length % 2 !== 0) return undefined;
  const le = bytes[0] === 0xff && bytes[1] === 0xfe;
  const be = bytes[0] === 0xfe && bytes[1] === 0xff;
  if (!le && !be) return undefined;
  const body = Buffer.from(bytes.buffer, bytes.byteOffset + 2, bytes.length - 2);
  // A NUL character is two zero bytes at an even offset, whichever the byte order.
  for (let i = 0; i + 1 < Math.min(body.length, SNIFF_BYTES); i += 2) if (body[i] === 0 && body[i + 1] === 0) return undefined;
  const text = le ? body.toString("utf16le") : Buffer.from(body).swap16().toString("utf16le"); // a copy: swap16 works in place
  if (!text.isWellFormed() || IMPLAUSIBLE_UTF16.test(text)) return undefined;
  return { text, encoding: le ? "utf-16le" : "utf-16be" };
}

/** Code units a UTF-16 text file does not hold (lone surrogates are checked by isWellFormed). */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const IMPLAUSIBLE_UTF16 = /[\u0000-\u0008\u000e-\u001a\u001c-\u001f\ue000-\uf8ff\ufffe\uffff]/;

/** Decodes a file's bytes for scanning (see the module doc). */
export function fileText(bytes: Uint8Array): FileText {
  const utf16 = decodeUtf16WithBom(bytes);
  if (utf16) return { kind: "text", ...utf16 };
  const utf16Mark = (bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff);
  if (utf16Mark)
    return {
      kind: "not-text",
      reason:
        bytes.length % 2 !== 0
          ? "UTF-16 byte order mark but an odd number of bytes"
          : "UTF-16 byte order mark but not UTF-16 text (a NUL, lone surrogate, private-use or control character): UTF-32 or binary",
    };
  if (bytes.subarray(0, SNIFF_BYTES).includes(0)) return { kind: "not-text", reason: "binary file: a NUL byte in the first 8 KiB" };
  const mark = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  return { kind: "text", text: Buffer.from(bytes.buffer, bytes.byteOffset + mark, bytes.length - mark).toString("utf8"), encoding: "utf-8" };
}
