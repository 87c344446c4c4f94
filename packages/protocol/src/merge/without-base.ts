/**
 * The merge of two texts whose common ancestor is not known (the base version's content was
 * purged from the server's history, so neither the client nor the server can read it). Nothing
 * says which side changed what, so every run of lines where the two differ is a conflict hunk
 * with an empty base, and the lines both hold in the same order (a longest common subsequence)
 * stay once between them, as git shows an add/add conflict. Line endings as in `mergeText`: when
 * each side uses one style, lines are compared without it and the result takes the local side's
 * (the server's when the local text has no line break).
 * Cost: sides longer than `MAX_DIFF_LINES` lines (after the lines both start and end with) are
 * not diffed: the middle is one conflict hunk.
 */
import { diffIndices } from "node-diff3";
import { eolStyle, splitLines, toLf, withEol } from "./lines.js";
import { MAX_DIFF_LINES, type MergeRegion, type MergeResult } from "./merge-text.js";

/** Whether `text` ends with a line break; undefined (no opinion) for "". */
const endsWithNewline = (text: string) => (text === "" ? undefined : text.endsWith("\n"));

/** The differing runs of `a` and `b` as [aStart, aLength, bStart, bLength], in order. */
function hunks(a: readonly string[], b: readonly string[]): [number, number, number, number][] {
  if (Math.max(a.length, b.length) > MAX_DIFF_LINES) return a.length + b.length > 0 ? [[0, a.length, 0, b.length]] : [];
  return (diffIndices(a as string[], b as string[]) as { buffer1: [number, number]; buffer2: [number, number] }[]).map((h) => [h.buffer1[0], h.buffer1[1], h.buffer2[0], h.buffer2[1]]);
}

/**
 * Merges `server` and `local` without a base (see the module comment).
 * @returns `{ clean: true, content: server }` when both hold the same lines, else
 *   `{ clean: false, regions, eol }` whose conflict regions have an empty `base`.
 */
export function mergeWithoutBase(server: string, local: string): MergeResult {
  const styles = [eolStyle(server), eolStyle(local)] as const;
  const uniform = !styles.includes("mixed");
  const known = (s: string): "lf" | "crlf" | undefined => (s === "lf" || s === "crlf" ? s : undefined);
  const eol = uniform ? (known(styles[1]) ?? known(styles[0]) ?? "lf") : "lf";
  const close = (text: string) => (text === "" || text.endsWith("\n") ? text : text + "\n");
  const norm = (text: string) => close(uniform ? toLf(text) : text);
  const [a, b] = [splitLines(norm(server)), splitLines(norm(local))];
  if (a.length === b.length && a.every((line, i) => line === b[i])) return { clean: true, content: server, union: false };
  let prefix = 0;
  while (prefix < Math.min(a.length, b.length) && a[prefix] === b[prefix]) prefix++;
  let suffix = 0;
  while (suffix < Math.min(a.length, b.length) - prefix && a[a.length - 1 - suffix] === b[b.length - 1 - suffix]) suffix++;
  const style = (lines: readonly string[]) => (uniform ? lines.map((l) => withEol(l, eol)) : [...lines]);
  const regions: MergeRegion[] = [];
  const same = (lines: readonly string[]) => {
    if (lines.length > 0) regions.push({ conflict: false, lines: style(lines) });
  };
  same(a.slice(0, prefix));
  const [ma, mb] = [a.slice(prefix, a.length - suffix), b.slice(prefix, b.length - suffix)];
  let ia = 0;
  for (const [sa, la, sb, lb] of hunks(ma, mb)) {
    same(ma.slice(ia, sa));
    regions.push({ conflict: true, base: [], server: style(ma.slice(sa, sa + la)), local: style(mb.slice(sb, sb + lb)) });
    ia = sa + la;
  }
  same(ma.slice(ia));
  same(a.slice(a.length - suffix));
  // The last line keeps no terminator when the local text (or, without one, the server's) ends without one.
  const finalNewline = endsWithNewline(local) ?? endsWithNewline(server) ?? true;
  const last = regions.at(-1);
  if (!finalNewline && last && !last.conflict && last.lines.length > 0) {
    const lines = [...last.lines];
    lines[lines.length - 1] = lines[lines.length - 1]!.replace(/\r?\n$/, "");
    regions[regions.length - 1] = { conflict: false, lines };
  }
  return { clean: false, regions, eol: eol === "crlf" ? "\r\n" : "\n" };
}
