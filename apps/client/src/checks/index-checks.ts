/**
 * The team index `team/MEMORY.md`: agents load it into every session and cut it after 200 lines or
 * 25,000 bytes (Claude Code's MAX_ENTRYPOINT_LINES / MAX_ENTRYPOINT_BYTES; its memory docs: "the
 * first 200 lines or 25KB, whichever comes first"), then open topic files through its links. A link
 * to a file that does not exist makes the agent believe it looked; a topic file no link mentions is
 * never opened.
 */
import { posix } from "node:path";
import type { MarkdownLink } from "./markdown.js";

export const INDEX_PATH = "MEMORY.md";
export const MAX_INDEX_LINES = 200;
export const MAX_INDEX_BYTES = 25_000;

export interface IndexProblem {
  readonly rule: "index-too-long" | "index-too-large" | "index-broken-link" | "index-link-outside";
  readonly line: number;
  readonly message: string;
}

/** Lines as an editor counts them: a final newline ends the last line, it does not start another. */
function lineCount(text: string): number {
  if (text === "") return 0;
  const lines = text.split(/\r\n|\n|\r/);
  return lines[lines.length - 1] === "" ? lines.length - 1 : lines.length;
}

/** The line holding the byte at `offset` (0-based, UTF-8). */
function lineAtByte(text: string, offset: number): number {
  const prefix = Buffer.from(text, "utf8").subarray(0, offset).toString("utf8");
  return prefix.split(/\r\n|\n|\r/).length;
}

/**
 * Where a relative link of the index points, as an entry path (relative to `team/`), or
 * "outside" (above `team/`, or an absolute path), or null for a link that is no local file
 * (a URL, `mailto:`, an anchor).
 */
export function linkTarget(url: string): string | "outside" | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(url) || url.startsWith("#") || url.startsWith("//")) return null;
  let path = url.replace(/[?#].*$/, "");
  try {
    path = decodeURIComponent(path);
  } catch {
    // keep it as written
  }
  if (path === "") return null;
  if (path.startsWith("/")) return "outside";
  const normalized = posix.normalize(path).replace(/\/+$/, "");
  if (normalized === ".." || normalized.startsWith("../")) return "outside";
  return normalized === "." ? "" : normalized;
}

/** Size limits and links of the index. `exists(entryPath)`: a file of the team scope, or a folder holding one. */
export function checkIndex(text: string, links: readonly MarkdownLink[], exists: (entryPath: string) => boolean): IndexProblem[] {
  const problems: IndexProblem[] = [];
  const lines = lineCount(text);
  if (lines > MAX_INDEX_LINES)
    problems.push({
      rule: "index-too-long",
      line: MAX_INDEX_LINES + 1,
      message: `the index has ${lines} lines; agents read the first ${MAX_INDEX_LINES}, so lines ${MAX_INDEX_LINES + 1}-${lines} are never seen: move detail into topic files`,
    });
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes > MAX_INDEX_BYTES)
    problems.push({
      rule: "index-too-large",
      line: lineAtByte(text, MAX_INDEX_BYTES),
      message: `the index is ${bytes} bytes; agents read the first ${MAX_INDEX_BYTES}, so the rest (from this line) is never seen`,
    });
  for (const link of links) {
    const target = linkTarget(link.url);
    if (target === null) continue;
    if (target === "outside")
      problems.push({ rule: "index-link-outside", line: link.line, message: `links to ${link.url}, outside the team scope: teammates do not have it` });
    else if (!exists(target))
      problems.push({ rule: "index-broken-link", line: link.line, message: `links to team/${target}, which does not exist: the agent believes it looked` });
  }
  return problems;
}
