/**
 * Line-based three-way merge of text, a thin wrapper around node-diff3 (Khanna, Kunal & Pierce's
 * diff3 algorithm). Lines keep their own terminators (`\n`, `\r\n`), so a merge never changes line
 * endings and a missing final newline stays missing.
 */
import { diff3Merge } from "node-diff3";

export type MergeOutcome = { clean: true; content: string } | { clean: false };

/**
 * Splits `text` into lines that each keep their terminator; the last line may have none.
 * `splitLines("a\r\nb")` → `["a\r\n", "b"]`; `splitLines("")` → `[]`.
 */
export function splitLines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/**
 * Merges the changes `base → head` and `base → incoming`.
 * @returns `{ clean: true, content }` when the two sides changed different lines (or made the same
 *   change: false conflicts are excluded); `{ clean: false }` when they changed overlapping lines,
 *   including two different insertions at the same place.
 */
export function mergeThreeWay(base: string, head: string, incoming: string): MergeOutcome {
  if (head === incoming) return { clean: true, content: head };
  if (base === head) return { clean: true, content: incoming };
  if (base === incoming) return { clean: true, content: head };
  const o = splitLines(base);
  const a = splitLines(head);
  const b = splitLines(incoming);
  // Lines common to the start (and end) of all three are stable; leaving them out of the LCS keeps
  // a typical small edit of a large file fast (diff3's LCS costs O(lines²)).
  let prefix = 0;
  const shortest = Math.min(o.length, a.length, b.length);
  while (prefix < shortest && o[prefix] === a[prefix] && o[prefix] === b[prefix]) prefix++;
  let suffix = 0;
  while (
    suffix < shortest - prefix &&
    o[o.length - 1 - suffix] === a[a.length - 1 - suffix] &&
    o[o.length - 1 - suffix] === b[b.length - 1 - suffix]
  )
    suffix++;
  const middle = (lines: string[]) => lines.slice(prefix, lines.length - suffix);
  const regions = diff3Merge(middle(a), middle(o), middle(b), { excludeFalseConflicts: true });
  let content = o.slice(0, prefix).join("");
  for (const region of regions) {
    if (region.conflict) return { clean: false };
    content += (region.ok ?? []).join("");
  }
  content += o.slice(o.length - suffix).join("");
  return { clean: true, content };
}
