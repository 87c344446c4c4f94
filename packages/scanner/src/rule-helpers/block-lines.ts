/**
 * Regex fragments for the multi-line key blocks (PEM, OpenSSH, PGP, PuTTY `.ppk`, SSH2, OpenVPN) as
 * they appear in notes: every line of the block may carry the same lead (a diff marker `+`/`-`, a
 * block quote `> `, nested `> > `, a comment marker `#`/`;`/`//`, indentation), and the line breaks
 * may be real (LF, CRLF; a lone CR is LF after the scan's normalisation) or the `\n`/`\r\n` escapes
 * of a JSON or shell string. Issue 10: a key removed in a diff (`-` on each line) or quoted in a
 * note (`> `) is still a key.
 */

/** A line break: LF, CRLF, or the `\n` / `\r\n` escape of a JSON or shell string. */
export const BREAK = String.raw`(?:\r?\n|\\r\\n|\\n)`;

/**
 * What may open a line of a block, before its content: indentation, then up to 3 markers each
 * followed by up to 4 blanks (a diff marker `+` or `-`, a block quote `>`, a comment marker `#`, `;`
 * or `//`). `+` and `/` are base64 characters: the negative lookahead keeps the content from
 * starting with `+` or `//`, so a line such as `+abc` reads one way only (marker, then content).
 * Without it a failing attempt over many short lines could try both readings of each line
 * (exponential); with it each line break is passed in exactly one way.
 */
export const LINE_LEAD = String.raw`[ \t]{0,16}(?:(?:[-+>#;]|\/\/)[ \t]{0,4}){0,3}(?!\+|\/\/)`;

/**
 * A break inside a block body: blanks, a {@link BREAK}, then the next line's {@link LINE_LEAD}.
 * Used as `(?:[A-Za-z0-9+/=](?:${BODY_BREAK})?){64}` to read 64 body characters across lines.
 */
export const BODY_BREAK = String.raw`[ \t]{0,16}${BREAK}${LINE_LEAD}`;

/** A header line of an armored block (`Proc-Type: 4,ENCRYPTED`, `Comment: "…"`), its lead and its break; a backslash escape other than a break (`\"` in JSON) is part of the line. */
export const HEADER_LINE = String.raw`${LINE_LEAD}[A-Za-z][A-Za-z0-9-]{0,30}:(?:[^\r\n\\]|\\[^rn]){0,200}${BREAK}`;

/**
 * The body characters of a matched block (`secret` group): line breaks, their escapes, line leads
 * and blanks removed, for plausibility checks.
 */
export function blockBody(secret: string): string {
  return secret.replace(/(?:\r?\n|\\r\\n|\\n)[ \t]*(?:(?:[-+>#;]|\/\/)[ \t]*)*|\s/g, "");
}
