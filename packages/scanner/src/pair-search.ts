/**
 * The pair rules' search (Rule.pair, rule-helpers/key-pair.ts): the secret next to an ID, found from
 * positions collected once per text instead of a regex reading the window around every ID.
 *
 * One {@link PairSearch} serves one searched text: on first use it collects the text's newline
 * positions, and per secret alphabet the starts of the runs of exactly the secret's length (one
 * pass each, O(n)); each ID then costs a sticky match of the ID and a few binary searches
 * (O(log n)), whatever the text around it. The result is the one the rule's `pattern` gives (the
 * reference, see key-pair.ts `pairPattern`), then the checks engine/match.ts `matchAt` applies
 * (token boundaries, documented examples, `validate`):
 * - after the ID: the first run starting after it, when the gap to it crosses at most `maxLines`
 *   newlines and reads at most `maxLineChars` code units of each line (a farther run cannot fit
 *   when the first does not);
 * - else before the ID: the nearest run ending on the ID's line within `maxLineChars`; else the
 *   first run, in text order, ending within the window of the `maxLines` lines before it (the
 *   order in which the regex's lookbehind tries them).
 * (Not reproduced: a run whose last characters are themselves an ID, where the regex's lookbehind
 * may take a second run before that one.)
 */
import type { CompiledRule } from "./engine/compile.js";
import { endsToken, startsToken } from "./engine/boundaries.js";
import { validates, type RuleMatch, type Verdicts } from "./engine/match.js";
import { isKnownExample, isKnownExampleAt } from "./examples.js";
import type { PairSpec } from "./rule.js";

/** Index of the first element of the sorted `a` that is >= `x` (a.length when none). */
function lowerBound(a: Int32Array, x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * {@link lowerBound} starting from `hint` (the answer of the previous, smaller query): the IDs of a
 * text come in order, so the answer is usually at `hint` or a step after it (O(1) instead of a
 * binary search per ID); anywhere else, a binary search.
 */
function lowerBoundFrom(a: Int32Array, x: number, hint: number): number {
  if (hint <= a.length && (hint === 0 || a[hint - 1]! < x)) {
    for (let k = hint, steps = 0; steps < 4; k++, steps++) if (k === a.length || a[k]! >= x) return k;
  }
  return lowerBound(a, x);
}

export class PairSearch {
  private newlines: Int32Array | undefined;
  /** Per spec: sorted starts of the runs of exactly `spec.length` code units of its alphabet. */
  private readonly runs = new Map<PairSpec, Int32Array>();
  /**
   * The last answer of the after-search's {@link lowerBoundFrom} (IDs are looked up in text order);
   * shared by the specs: a hint that does not hold for a spec's runs only costs the binary search.
   */
  private afterHint = 0;

  /** `verdicts`: the validators' verdicts in `text` (engine/match.ts), shared with the other rules' matches. */
  constructor(
    private readonly text: string,
    private readonly verdicts?: Verdicts,
  ) {}

  /** Like engine/match.ts `matchAt` for a rule with `pair`: the finding at the ID at `prefixStart`, or undefined. */
  matchAt(cr: CompiledRule, prefixStart: number): RuleMatch | undefined {
    const spec = cr.rule.pair!;
    const text = this.text;
    const b = cr.boundary;
    if (b !== undefined && !cr.hasLeadGroup && !startsToken(b, text, prefixStart)) return undefined;
    spec.id.lastIndex = prefixStart;
    if (!spec.id.test(text)) return undefined; // sticky: lastIndex is now the ID's end
    const idEnd = spec.id.lastIndex;
    const after = this.secretAfter(spec, idEnd);
    const start = after ?? this.secretBefore(spec, prefixStart);
    if (start === undefined) return undefined;
    const end = start + spec.length;
    if (b !== undefined && !endsToken(b, text, end)) return undefined;
    const value = text.slice(start, end);
    const matchEnd = after === undefined ? idEnd : end;
    if (isKnownExample(value) || isKnownExampleAt(text, prefixStart, matchEnd)) return undefined;
    if (!validates(cr, value, this.verdicts)) return undefined;
    return { start, end, value, matchEnd };
  }

  /** Start of the secret after the ID ending at `idEnd`, or undefined. */
  private secretAfter(spec: PairSpec, idEnd: number): number | undefined {
    const runs = this.runsOf(spec);
    const k = (this.afterHint = lowerBoundFrom(runs, idEnd, this.afterHint));
    if (k === runs.length) return undefined;
    const s = runs[k]!;
    const nl = this.lines();
    let from = idEnd;
    let crossed = 0;
    for (let j = lowerBound(nl, idEnd); j < nl.length && nl[j]! < s; j++) {
      if (nl[j]! - from > spec.maxLineChars || ++crossed > spec.maxLines) return undefined;
      from = nl[j]! + 1;
    }
    return s - from <= spec.maxLineChars ? s : undefined;
  }

  /** Start of the secret before the ID starting at `idStart`, or undefined. */
  private secretBefore(spec: PairSpec, idStart: number): number | undefined {
    const runs = this.runsOf(spec);
    const len = spec.length;
    const nl = this.lines();
    let j = lowerBound(nl, idStart) - 1; // the newline before the ID's line, or -1
    const lineStart = j + 1 === 0 ? 0 : nl[j]! + 1;
    // Runs ending at or before idStart: the last one has index k - 1.
    const k = lowerBound(runs, idStart - len + 1);
    if (k > 0) {
      const e = runs[k - 1]! + len;
      if (e >= lineStart && idStart - e <= spec.maxLineChars) return runs[k - 1];
    }
    if (j < 0 || idStart - lineStart > spec.maxLineChars) return undefined;
    // The window on the previous lines: back from the ID's line while each whole line fits.
    let windowStart = 0;
    for (let crossed = 1; ; crossed++) {
      const lineEnd = nl[j]!; // the newline ending line -crossed
      const start = j === 0 ? 0 : nl[j - 1]! + 1;
      windowStart = Math.max(start, lineEnd - spec.maxLineChars);
      if (crossed === spec.maxLines || j === 0 || lineEnd - start > spec.maxLineChars) break;
      j--;
    }
    const first = lowerBound(runs, windowStart - len);
    if (first === runs.length) return undefined;
    const s = runs[first]!;
    return s + len < lineStart ? s : undefined;
  }

  private lines(): Int32Array {
    if (this.newlines !== undefined) return this.newlines;
    const out: number[] = [];
    for (let i = this.text.indexOf("\n"); i !== -1; i = this.text.indexOf("\n", i + 1)) out.push(i);
    return (this.newlines = Int32Array.from(out));
  }

  private runsOf(spec: PairSpec): Int32Array {
    const hit = this.runs.get(spec);
    if (hit !== undefined) return hit;
    const text = this.text;
    const inRun = spec.secretChars;
    const out: number[] = [];
    let start = 0;
    for (let i = 0; i <= text.length; i++) {
      const c = i < text.length ? text.charCodeAt(i) : 0x80;
      if (c < 128 && inRun[c] === 1) continue;
      if (i - start === spec.length) out.push(start);
      start = i + 1;
    }
    const runs = Int32Array.from(out);
    this.runs.set(spec, runs);
    return runs;
  }
}
