/**
 * Regex fragments for the multi-line key blocks (PEM, OpenSSH, PGP, PuTTY `.ppk`, SSH2, OpenVPN) as
 * they appear in notes: every line of the block may carry the same lead (a diff marker `+`/`-`, a
 * block quote `> `, nested `> > `, a comment marker `#`/`;`/`//`, indentation), and the line breaks
 * may be real (LF, CRLF; a lone CR is LF after the scan's normalisation) or the `\n`/`\r\n` escapes
 * of a JSON or shell string. Issue 10: a key removed in a diff (`-` on each line) or quoted in a
 * note (`> `) is still a key.
 */

/** A line break of plain text: LF, CRLF, or the `\n` / `\r\n` escape of a JSON or shell string. */
export const NEWLINE = String.raw`(?:\r?\n|\\r\\n|\\n)`;

/**
 * A line break: LF, CRLF, the `\n` / `\r\n` escape of a JSON or shell string, or an HTML `<br>`
 * (`<br>`, `<br/>`, `<br />`, any case; a key pasted into a Markdown table cell or an HTML note),
 * optionally followed by a real break. A `<br>` then LF reads one way only: as one break.
 */
export const BREAK = String.raw`(?:<[bB][rR] ?\/?>(?:[ \t]{0,16}(?:\r?\n|\\r\\n|\\n))?|\r?\n|\\r\\n|\\n)`;

/**
 * The end of a line of a block: blanks, the closing `|` of a Markdown table cell (and blanks after
 * it), then a {@link BREAK}. The blanks before and after the `|` are apart, so a line end reads one
 * way only.
 */
export const LINE_END = String.raw`[ \t]{0,16}(?:\|[ \t]{0,16})?${BREAK}`;

/**
 * What may open a line of a block, before its content: indentation, then up to 3 markers each
 * followed by up to 4 blanks (a diff marker `+` or `-`, a block quote `>`, a comment marker `#`, `;`
 * or `//`, a Markdown list item `*`, `-`, `+` or `1.`/`1)` (1 to 4 digits), a table cell `|`). `+`
 * and `/` are base64 characters: the negative lookahead keeps the content from starting with `+`
 * or `//`, so a line such as `+abc` reads one way only (marker, then content). Without it a failing
 * attempt over many short lines could try both readings of each line (exponential); with it each
 * line break is passed in exactly one way. Digits are base64 too, but a list number must be
 * followed by `.` or `)`, which no body holds: the reading of `12. abc` as content dies at the `.`.
 */
export const LINE_LEAD = String.raw`[ \t]{0,16}(?:(?:[-+>#;*|]|\/\/|[0-9]{1,4}[.)])[ \t]{0,4}){0,3}(?!\+|\/\/)`;

/**
 * A break inside a block body: a {@link LINE_END} then the next line's {@link LINE_LEAD}, or blanks
 * alone (the lines of a key joined by spaces, as a key pasted into a one-line field looks). Used as
 * `(?:[A-Za-z0-9+/=](?:${BODY_BREAK})?){n}` to read n body characters across lines. The blanks-only
 * reading needs a body character after the blanks, the other a `|` or a break: one reading each.
 */
export const BODY_BREAK = String.raw`(?:${LINE_END}${LINE_LEAD}|[ \t]{1,16})`;

/**
 * Body characters a block's first line holds at least, before any break: every real key's first
 * body line is longer (64 characters in PEM and PGP armor, 70 in OpenSSH, 32 hex in an OpenVPN
 * static key). Prose after a BEGIN line (`-----BEGIN PRIVATE KEY----- is what the file starts
 * with …`), now that blanks alone may separate lines, is words of a few letters.
 */
export const FIRST_RUN = 32;

/**
 * `n` (at least {@link FIRST_RUN}) body characters of a block, the first {@link FIRST_RUN} of them
 * on one line, the rest across {@link BODY_BREAK}s: the regex source of a rule's `secret` group.
 */
export function blockChars(n: number): string {
  return String.raw`[A-Za-z0-9+/=]{${FIRST_RUN}}(?:${BODY_BREAK})?(?:[A-Za-z0-9+/=](?:${BODY_BREAK})?){${n - FIRST_RUN}}`;
}

/**
 * What follows a block's BEGIN line up to its first body character: the line's end, up to
 * `headers` header lines ({@link HEADER_LINE}), with `emptyLine` an optional empty line (after
 * armor headers), and the body line's lead; or blanks alone, when the lines of the block were
 * joined by spaces (a key pasted into a one-line field).
 */
export function afterBeginLine(headers: number, emptyLine: boolean): string {
  const header = headers > 0 ? String.raw`(?:${HEADER_LINE}){0,${headers}}` : "";
  const empty = emptyLine ? String.raw`(?:${LINE_LEAD}${LINE_END})?` : "";
  return String.raw`(?:${LINE_END}${header}${empty}${LINE_LEAD}|[ \t]{1,16})`;
}

/** A header line of an armored block (`Proc-Type: 4,ENCRYPTED`, `Comment: "…"`), its lead and its break; a backslash escape other than a break (`\"` in JSON) is part of the line, a `<br>` is not. */
export const HEADER_LINE = String.raw`${LINE_LEAD}[A-Za-z][A-Za-z0-9-]{0,30}:(?:[^\r\n\\<]|\\[^rn]|<(?![bB][rR][ \/>])){0,200}${BREAK}`;

/** A line's lead, as {@link LINE_LEAD} reads it (without its lookahead). */
const LEAD = /^[ \t]*(?:(?:[-+>#;*|]|\/\/|[0-9]{1,4}[.)])[ \t]*)*/;

/**
 * The body characters of a matched block (`secret` group): line breaks (their escapes, `<br>`),
 * line leads, table cell bars and blanks removed, for plausibility checks and fingerprints.
 *
 * `+` and `/` are base64 characters, so a body line may start with `+` or `//` (about 1 line in
 * 32 of a random base64 body), which {@link LINE_LEAD} reads as a diff or comment marker. The
 * lead a block's lines share (the common prefix of its continuation lines' leads: `+` on every
 * line of a diff, `> ` in a quote, nothing in a plain block) is removed from each; a `+` or `//`
 * glued to a line's content (no blank after it) beyond that shared lead is the line's first body
 * characters and is kept (before, it was dropped: the decoded body lost a byte alignment and a
 * structure check such as `openssh-unarmored-private-key`'s failed for ~3% of ssh-keygen keys).
 * A block with one continuation line takes that line's lead as shared.
 */
export function blockBody(secret: string): string {
  const [first = "", ...rest] = secret.replace(/<br ?\/?>(?:[ \t]*(?:\r?\n|\\r\\n|\\n))?|\r?\n|\\r\\n|\\n/gi, "\n").split("\n");
  const leads = rest.map((line) => LEAD.exec(line)?.[0] ?? "");
  let shared = leads[0] ?? "";
  for (const lead of leads) while (!lead.startsWith(shared)) shared = shared.slice(0, -1);
  const content = rest.map((line, i) => line.slice(contentStart(leads[i]!, shared.length)));
  return (first + content.join("")).replace(/[\s|]/g, "");
}

/** Where a line's body starts: after its lead, except a `+` or `//` glued to the body beyond the block's shared lead (`sharedLength` characters). */
function contentStart(lead: string, sharedLength: number): number {
  const glued = lead.endsWith("//") ? 2 : lead.endsWith("+") ? 1 : 0;
  return glued > 0 && lead.length - glued >= sharedLength ? lead.length - glued : lead.length;
}
