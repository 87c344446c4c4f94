/**
 * Git-style conflict markers in a working file, so both sides of overlapping edits sit where
 * people and agents read the file:
 *
 * ```
 * <<<<<<< yours (local)
 * your lines
 * ||||||| base v3
 * the lines both started from (v0: the file is new on both sides)
 * =======
 * bob's lines
 * >>>>>>> bob (v7)
 * ```
 *
 * Your side comes first, as in git; the teammate's side is labelled with the author and version
 * of the server version it came from. A file whose conflict left markers is not pushed while a
 * `<<<<<<< `, `||||||| ` or `>>>>>>> ` line remains (a lone `=======` line is not enough: Markdown
 * uses it to underline headings).
 */
import type { MergeRegion } from "@teammem/protocol";

export interface MarkerLabels {
  /** Version the two sides started from (0: none). */
  readonly baseVersion: number;
  /** Author of the server version ("" when unknown). */
  readonly author: string;
  readonly version: number;
  /** The base version's content was purged from the server's history: the base section is empty. */
  readonly basePurged?: boolean;
}

const MARKER_LINE = /^(<{7} |\|{7} |>{7} )/m;

/** The file's text with each conflict region written between markers (see the module comment). */
export function renderWithMarkers(regions: readonly MergeRegion[], eol: "\n" | "\r\n", labels: MarkerLabels): string {
  const base =
    labels.baseVersion === 0
      ? "base (none: new on both sides)"
      : labels.basePurged
        ? `base v${labels.baseVersion} (purged from the server's history)`
        : `base v${labels.baseVersion}`;
  const theirs = `${labels.author || "server"} (v${labels.version})`;
  let out = "";
  const put = (lines: readonly string[]) => {
    for (const line of lines) out += line;
    if (out !== "" && !out.endsWith("\n")) out += eol; // a side's last line without its newline
  };
  for (const region of regions) {
    if (!region.conflict) {
      for (const line of region.lines) out += line;
      continue;
    }
    if (out !== "" && !out.endsWith("\n")) out += eol;
    out += `<<<<<<< yours (local)${eol}`;
    put(region.local);
    out += `||||||| ${base}${eol}`;
    put(region.base);
    out += `=======${eol}`;
    put(region.server);
    out += `>>>>>>> ${theirs}${eol}`;
  }
  return out;
}

/** The 1-based line of the first conflict marker left in `text`, or null when none is left. */
export function firstMarkerLine(text: string): number | null {
  const match = MARKER_LINE.exec(text);
  if (!match) return null;
  return text.slice(0, match.index).split("\n").length;
}
