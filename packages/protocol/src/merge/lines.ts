/**
 * Lines and line endings of merged text. A merge compares lines; to make a whole-file change of
 * line endings (LF ↔ CRLF) not look like every line changed, texts whose endings are uniform are
 * compared with LF endings and the result gets one style back (see {@link mergeEol}).
 */

/** How a text ends its lines: all `\n`, all `\r\n`, both, or no line break at all. */
export type EolStyle = "lf" | "crlf" | "mixed" | "none";

/**
 * Splits `text` into lines that each keep their terminator; the last line may have none.
 * `splitLines("a\r\nb")` → `["a\r\n", "b"]`; `splitLines("")` → `[]`.
 */
export function splitLines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/** The line-ending style of `text` (a lone `\r` is not a line break). */
export function eolStyle(text: string): EolStyle {
  const breaks = (text.match(/\n/g) ?? []).length;
  if (breaks === 0) return "none";
  const crlf = (text.match(/\r\n/g) ?? []).length;
  return crlf === 0 ? "lf" : crlf === breaks ? "crlf" : "mixed";
}

/** `text` with every `\r\n` turned into `\n`. */
export function toLf(text: string): string {
  return text.replace(/\r\n/g, "\n");
}

/** `text` (LF endings) with the endings of `style` ("crlf": every `\n` becomes `\r\n"). */
export function withEol(text: string, style: "lf" | "crlf"): string {
  return style === "crlf" ? text.replace(/\n/g, "\r\n") : text;
}

/**
 * Three-way choice of a property of the merged text (its line-ending style, whether it ends with
 * a newline): a side that kept the base's value yields to the side that changed it; when both
 * changed it differently, the server's value wins (as its lines come first in a union).
 * `undefined` stands for "no opinion" (e.g. the style of a text without line breaks).
 */
export function mergeProperty<T>(base: T | undefined, server: T | undefined, local: T | undefined): T | undefined {
  if (server === undefined) return local;
  if (local === undefined) return server;
  if (server === local) return server;
  if (server === base) return local;
  return server;
}

/** The line-ending style of a merge of texts with uniform styles `base`, `server`, `local` (LF when none has a line break). */
export function mergeEol(base: EolStyle, server: EolStyle, local: EolStyle): "lf" | "crlf" {
  const known = (s: EolStyle) => (s === "lf" || s === "crlf" ? s : undefined);
  return mergeProperty(known(base), known(server), known(local)) ?? "lf";
}
