/**
 * The three-way merge of a text entry, shared by the server (a push that raced another) and the
 * client (a pull of a file changed locally), so both decide the same way. Line-based, on top of
 * node-diff3's `diff3MergeRegions` (Khanna, Kunal & Pierce's diff3).
 *
 * Sides: `base` (the version both started from; "" for a path new on both sides), `server` (the
 * head the server holds) and `local` (the edit being merged in: the pushed content on the server,
 * the working file on the client). Rules, per hunk where both sides changed something:
 * - both made the same change → taken once (a false conflict);
 * - concurrent insertions at the same point (the base lines of the hunk are kept by both sides,
 *   each only added lines around them) → policy `union`: both kept, the server's lines first,
 *   then the local ones; lines both insertions start or end with are kept once. Under `union`
 *   a side that only added lines around what the other side changed is merged the same way
 *   (e.g. one edits the last line while the other appends a line);
 * - anything else (both changed the same lines, or any concurrent insertion under policy
 *   `conflict`) → a conflict hunk.
 * Cost: the texts are split at lines each of the three has exactly once, in the same order
 * (anchors, see anchors.ts), and diff3 runs on the parts between them; a part longer than
 * {@link MAX_DIFF_LINES} lines on a side is not diffed line by line but handled as one hunk by the
 * rules above (a conflict unless a side left it unchanged or only added lines around it), so a
 * merge never costs more than O(MAX_DIFF_LINES²) per part, whatever the input.
 * Line endings: when each text uses one style (all LF or all CRLF), lines are compared without
 * it and the result gets the style a side changed to (a whole-file LF → CRLF change is not a
 * conflict with a content edit); texts that mix styles are merged as they are. A missing final
 * newline is handled the same way (it is not an edit of the last line).
 */
import { diff3MergeRegions, type IRegion } from "node-diff3";
import { anchorLines } from "./anchors.js";
import { eolStyle, mergeEol, mergeProperty, splitLines, toLf, withEol } from "./lines.js";

/** How concurrent insertions at the same point are merged (see the module comment). */
export const MERGE_POLICIES = ["union", "conflict"] as const;
export type MergePolicy = (typeof MERGE_POLICIES)[number];

/** A run of merged lines, or a hunk both sides changed differently. Lines keep their terminators. */
export type MergeRegion =
  | { readonly conflict: false; readonly lines: readonly string[] }
  | { readonly conflict: true; readonly base: readonly string[]; readonly server: readonly string[]; readonly local: readonly string[] };

export type MergeResult =
  /** `union`: concurrent insertions were kept both. */
  | { readonly clean: true; readonly content: string; readonly union: boolean }
  /** `eol`: the line terminator to put after marker lines (the result's style). */
  | { readonly clean: false; readonly regions: readonly MergeRegion[]; readonly eol: "\n" | "\r\n" };

export interface MergeInput {
  readonly base: string;
  readonly server: string;
  readonly local: string;
  readonly policy: MergePolicy;
}

const sameLines = (x: readonly string[], y: readonly string[]) => x.length === y.length && x.every((l, i) => l === y[i]);

/** `side` as `pre + lines + post` when it keeps `lines` as one run (the first such place), else null. Linear time (Knuth-Morris-Pratt). */
function around(lines: readonly string[], side: readonly string[]): { pre: string[]; post: string[] } | null {
  const found = (k: number) => ({ pre: side.slice(0, k), post: side.slice(k + lines.length) });
  if (lines.length === 0) return found(0);
  const fail = new Array<number>(lines.length).fill(0);
  for (let i = 1, k = 0; i < lines.length; i++) {
    while (k > 0 && lines[i] !== lines[k]) k = fail[k - 1]!;
    if (lines[i] === lines[k]) k++;
    fail[i] = k;
  }
  for (let i = 0, k = 0; i < side.length; i++) {
    while (k > 0 && side[i] !== lines[k]) k = fail[k - 1]!;
    if (side[i] === lines[k]) k++;
    if (k === lines.length) return found(i - lines.length + 1);
  }
  return null;
}

/** Both insertions, the server's first; lines both start or end with are kept once. */
function unite(server: readonly string[], local: readonly string[]): string[] {
  const shortest = Math.min(server.length, local.length);
  let head = 0;
  while (head < shortest && server[head] === local[head]) head++;
  let tail = 0;
  while (tail < shortest - head && server[server.length - 1 - tail] === local[local.length - 1 - tail]) tail++;
  return [...server.slice(0, head), ...server.slice(head, server.length - tail), ...local.slice(head, local.length - tail), ...server.slice(server.length - tail)];
}

/** The merged lines of one hunk both sides changed, or null when it is a conflict. Sets `state.union` when insertions were united. */
function mergeHunk(o: readonly string[], a: readonly string[], b: readonly string[], policy: MergePolicy, state: { union: boolean }): string[] | null {
  if (sameLines(a, b)) return [...a];
  if (sameLines(a, o)) return [...b];
  if (sameLines(b, o)) return [...a];
  if (policy !== "union") return null;
  const sa = around(o, a);
  const sb = around(o, b);
  if (!sa && !sb) return null;
  state.union = true;
  if (sa && sb) return [...unite(sa.pre, sb.pre), ...o, ...unite(sa.post, sb.post)];
  if (sb) return [...sb.pre, ...a, ...sb.post];
  return [...sa!.pre, ...b, ...sa!.post];
}

/** Lines common to the start (and end) of all three: stable, left out of diff3 (its LCS costs O(lines²)). */
function commonEnds(o: string[], a: string[], b: string[]): { prefix: number; suffix: number } {
  const shortest = Math.min(o.length, a.length, b.length);
  let prefix = 0;
  while (prefix < shortest && o[prefix] === a[prefix] && o[prefix] === b[prefix]) prefix++;
  let suffix = 0;
  while (suffix < shortest - prefix && o[o.length - 1 - suffix] === a[a.length - 1 - suffix] && o[o.length - 1 - suffix] === b[b.length - 1 - suffix])
    suffix++;
  return { prefix, suffix };
}

/** Lines per side above which a part between anchors is not diffed line by line (diff3's LCS is quadratic). */
export const MAX_DIFF_LINES = 5000;

/** diff3's regions of one part between anchors, or the whole part as one hunk when it is too long to diff. */
function partRegions(a: string[], o: string[], b: string[]): IRegion<string>[] {
  if (Math.max(a.length, o.length, b.length) <= MAX_DIFF_LINES) return diff3MergeRegions(a, o, b);
  return [{ stable: false, aStart: 0, aLength: a.length, aContent: a, oStart: 0, oLength: o.length, oContent: o, bStart: 0, bLength: b.length, bContent: b }];
}

/** diff3's regions of the middle parts, split at anchor lines (each anchor a stable region). */
function anchoredRegions(a: string[], o: string[], b: string[]): IRegion<string>[] {
  const regions: IRegion<string>[] = [];
  let [io, ia, ib] = [0, 0, 0];
  for (const [ao, aa, ab] of [...anchorLines(o, a, b), [o.length, a.length, b.length] as const]) {
    if (ao > io || aa > ia || ab > ib) regions.push(...partRegions(a.slice(ia, aa), o.slice(io, ao), b.slice(ib, ab)));
    if (ao < o.length) regions.push({ stable: true, buffer: "o", bufferStart: ao, bufferLength: 1, bufferContent: [o[ao]!] });
    [io, ia, ib] = [ao + 1, aa + 1, ab + 1];
  }
  return regions;
}

/** Region list of the merge of line arrays (conflict hunks only under overlap; see the module comment). */
function mergeLines(o: string[], a: string[], b: string[], policy: MergePolicy, state: { union: boolean }): MergeRegion[] {
  const { prefix, suffix } = commonEnds(o, a, b);
  const middle = (lines: string[]) => lines.slice(prefix, lines.length - suffix);
  const regions: MergeRegion[] = [];
  let run: string[] | null = null; // the lines of the last region while it is a merged one
  const ok = (lines: readonly string[]) => {
    if (lines.length === 0) return;
    if (run === null) regions.push({ conflict: false, lines: (run = []) });
    for (const line of lines) run.push(line);
  };
  ok(o.slice(0, prefix));
  for (const region of anchoredRegions(middle(a), middle(o), middle(b))) {
    if (region.stable) {
      ok(region.bufferContent);
      continue;
    }
    const merged = mergeHunk(region.oContent, region.aContent, region.bContent, policy, state);
    if (merged) {
      ok(merged);
      continue;
    }
    // Lines both concurrent insertions start or end with are not part of the conflict.
    let [sa, sb] = [region.aContent, region.bContent];
    let tail: string[] = [];
    if (region.oContent.length === 0) {
      const shortest = Math.min(sa.length, sb.length);
      let head = 0;
      while (head < shortest && sa[head] === sb[head]) head++;
      let end = 0;
      while (end < shortest - head && sa[sa.length - 1 - end] === sb[sb.length - 1 - end]) end++;
      ok(sa.slice(0, head));
      tail = sa.slice(sa.length - end);
      [sa, sb] = [sa.slice(head, sa.length - end), sb.slice(head, sb.length - end)];
    }
    regions.push({ conflict: true, base: region.oContent, server: sa, local: sb });
    run = null;
    ok(tail);
  }
  ok(o.slice(o.length - suffix));
  return regions;
}

/** Whether `text` ends with a line break; undefined (no opinion) for "". */
const endsWithNewline = (text: string) => (text === "" ? undefined : text.endsWith("\n"));
/** `text` with a final "\n" when it has content and none. */
const closeLastLine = (text: string) => (text === "" || text.endsWith("\n") ? text : text + "\n");

/**
 * Merges `server` and `local`, both derived from `base`, under `policy` (see the module comment).
 * Deterministic: the same input gives the same result on the client and on the server.
 * @returns `{ clean: true, content, union }`, or `{ clean: false, regions, eol }` whose conflict
 *   regions hold the base, server and local lines of each overlapping hunk.
 */
export function mergeText({ base, server, local, policy }: MergeInput): MergeResult {
  if (server === local || base === local) return { clean: true, content: server, union: false };
  if (base === server) return { clean: true, content: local, union: false };
  const styles = [eolStyle(base), eolStyle(server), eolStyle(local)] as const;
  const uniform = !styles.includes("mixed");
  const eol = uniform ? mergeEol(...styles) : "lf";
  const norm = (text: string) => closeLastLine(uniform ? toLf(text) : text);
  const [o, a, b] = [norm(base), norm(server), norm(local)];
  const finalNewline = mergeProperty(endsWithNewline(base), endsWithNewline(server), endsWithNewline(local)) ?? true;
  const finish = (lf: string) => {
    const styled = uniform ? withEol(lf, eol) : lf;
    return finalNewline ? styled : styled.replace(/\r?\n$/, "");
  };
  if (a === b || o === b) return { clean: true, content: finish(a), union: false };
  if (o === a) return { clean: true, content: finish(b), union: false };
  const state = { union: false };
  const regions = mergeLines(splitLines(o), splitLines(a), splitLines(b), policy, state);
  if (regions.every((r) => !r.conflict)) return { clean: true, content: finish(regions.flatMap((r) => (r.conflict ? [] : r.lines)).join("")), union: state.union };
  const styleLines = (lines: readonly string[]) => (uniform ? lines.map((l) => withEol(l, eol)) : lines);
  return {
    clean: false,
    eol: eol === "crlf" ? "\r\n" : "\n",
    regions: regions.map((r) =>
      r.conflict ? { conflict: true, base: styleLines(r.base), server: styleLines(r.server), local: styleLines(r.local) } : { conflict: false, lines: styleLines(r.lines) },
    ),
  };
}
