/** Shown text with terminal controls escaped: used by teammem-scan and the teammem client for every printed path. */

/** C0 controls, DEL, C1 controls, and the bidirectional-text controls (LRM, RLM, ALM, LRE..RLO, LRI..PDI). */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * `text` with every control character a terminal would act on written as an escape (`\x1b`,
 * `\n`, `\u202e`), so a local file name cannot move the cursor, erase a line, start a new line or
 * reverse the text of what is printed. Other characters, backslash included, are kept.
 */
export function escapeControls(text: string): string {
  return text.replace(CONTROLS, (c) => {
    const code = c.charCodeAt(0);
    if (c === "\n") return "\\n";
    if (c === "\r") return "\\r";
    if (c === "\t") return "\\t";
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
  });
}
