/** Shown text with terminal controls escaped: used by teammem-scan and the teammem client for every printed path. */

import { BIDI_CONTROL_RANGES } from "./invisible-characters.js";

const u4 = (cp: number) => `\\u${cp.toString(16).padStart(4, "0")}`;
/** C0 controls, DEL, C1 controls, and the bidirectional-text controls (ALM, LRM, RLM, LRE..RLO, LRI..PDI: {@link BIDI_CONTROL_RANGES}, all in the BMP). */
const CONTROLS = new RegExp(`[\\u0000-\\u001f\\u007f-\\u009f${BIDI_CONTROL_RANGES.map(([from, to]) => `${u4(from)}-${u4(to)}`).join("")}]`, "g");

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
