/**
 * Static safety check of a rule's regular expression, so each match attempt costs
 * O(longest possible match) and the whole scan stays linear in the input.
 *
 * A small parser of JavaScript regex syntax computes, for the whole pattern, the maximum match width
 * and reports:
 * - `unbounded-quantifier`: `*`, `+` or `{n,}` anywhere (also inside lookarounds);
 * - `nested-quantifier` (a WARNING, in `warnings`, not `problems`): a quantifier with max > 4 applied
 *   to a group that itself contains a variable-width part (a quantifier with min ≠ max, or an
 *   alternation) — the classic catastrophic-backtracking shape, e.g. `(?:[a-z]{1,8}-?){1,20}`. It is
 *   harmless when iterations are delimited by characters the inner part cannot match (PEM lines), which
 *   this checker cannot prove, so catalog rules may use it (the linear-time test measures them) while
 *   custom rules from a config file may not;
 * - `ambiguous-split` (a WARNING too, so an error for custom rules): a backtracking matcher may take
 *   more than {@link MAX_SPLIT_WORK} steps in one match attempt. The bound is static and sound: a part
 *   after others is tried once per way they matched (ways multiply along a sequence, add across an
 *   alternation, `X{m,n}` has Σ ways(X)^k ways for k = m..n; a lookaround is atomic: one way), so
 *   chained variable-width parts that can split the same characters, e.g.
 *   `(?:a{1,4}){1,4}(?:a{1,4}){1,4}(?:a{1,4}){1,4}b` (~4·10^7 steps at each prefix), are caught
 *   however they are spelled. It counts ways whose characters could not match both parts too
 *   (`[a-z]{1,200}[0-9]{1,200}`), which only disjoint character classes make cheap and this checker does
 *   not prove: the catalog may use them (the linear-time test measures it), custom rules may not;
 * - `too-long`: maximum match width over {@link MAX_MATCH_WIDTH} code units;
 * - `global-flag`: the `g` flag (the engine uses sticky matching; `g` would be ignored/misleading);
 * - `syntax`: the source does not parse (unbalanced parentheses or brackets).
 * Backreferences are allowed (bounded by the group they refer to).
 */

/** Longest match a rule may produce, in UTF-16 code units (PEM private keys need a few thousand). */
export const MAX_MATCH_WIDTH = 16_384;

/**
 * Most steps one match attempt may take, all ways of splitting a run tried (see `ambiguous-split`):
 * 4 × {@link MAX_MATCH_WIDTH}, so one variable-width run as long as the longest match, given back a
 * character at a time with a short fixed tail tried after each (`[a-z]{0,16000}!`: ~48 000), passes;
 * two chained `(?:a{1,4}){1,4}` (~117 000) do not.
 */
export const MAX_SPLIT_WORK = 4 * MAX_MATCH_WIDTH;

export interface PatternProblem {
  readonly kind: "unbounded-quantifier" | "ambiguous-split" | "nested-quantifier" | "too-long" | "global-flag" | "syntax";
  /** Human explanation, naming the offending part of the source (never a matched value). */
  readonly message: string;
}

export interface PatternSafety {
  /** No problems (warnings allowed). */
  readonly ok: boolean;
  readonly problems: readonly PatternProblem[];
  /** Shapes that may backtrack heavily (see module doc); empty for most patterns. */
  readonly warnings: readonly PatternProblem[];
  /** Maximum width of a match in code units (Infinity when unbounded). */
  readonly maxWidth: number;
  /** Minimum width of a match in code units (0 when the source does not parse). */
  readonly minWidth: number;
}

interface Width {
  min: number;
  max: number;
  /** Contains a variable-width part (quantifier with min ≠ max, or alternation of unequal widths). */
  variable: boolean;
  /** Upper bound on the ways this part can match from one position (backtracking retries each). */
  ways: number;
  /** Upper bound on the steps a backtracking matcher spends on this part from one position, all ways tried. */
  work: number;
}

/**
 * Checks `re` (a RegExp or its source string). Returns every problem found; `ok` when none.
 * Never throws.
 */
export function checkPatternSafety(re: RegExp | string): PatternSafety {
  const source = typeof re === "string" ? re : re.source;
  const flags = typeof re === "string" ? "" : re.flags;
  const problems: PatternProblem[] = [];
  const warnings: PatternProblem[] = [];
  if (flags.includes("g")) problems.push({ kind: "global-flag", message: "the g flag is not allowed (the engine matches sticky at each prefix)" });
  let i = 0;

  const fail = (message: string): never => {
    throw new SyntaxError(message);
  };

  // Parses an alternation until `)` or end; returns its width.
  const parseAlternation = (): Width => {
    const branches: Width[] = [parseSequence()];
    while (source[i] === "|") {
      i++;
      branches.push(parseSequence());
    }
    const min = Math.min(...branches.map((b) => b.min));
    const max = Math.max(...branches.map((b) => b.max));
    const ways = capped(branches.reduce((n, b) => n + b.ways, 0));
    const work = capped(branches.reduce((n, b) => n + b.work, 0));
    return { min, max, variable: branches.length > 1 || branches.some((b) => b.variable), ways, work };
  };

  const parseSequence = (): Width => {
    const w: Width = { min: 0, max: 0, variable: false, ways: 1, work: 0 };
    while (i < source.length && source[i] !== "|" && source[i] !== ")") {
      const atomStart = i;
      const atom = parseAtom();
      const q = parseQuantifier();
      if (q) {
        const text = source.slice(atomStart, i);
        if (q.max === Infinity) problems.push({ kind: "unbounded-quantifier", message: `unbounded quantifier in \`${clip(text)}\`: use a bounded {m,n}` });
        if (q.max > 4 && atom.variable && atom.max > 0)
          warnings.push({ kind: "nested-quantifier", message: `quantified group with variable-width content in \`${clip(text)}\`: use a character class` });
        w.min += atom.min * q.min;
        w.max += atom.max * q.max;
        w.variable ||= atom.variable || q.min !== q.max;
        addCost(w, repeated(atom, q), text);
      } else {
        w.min += atom.min;
        w.max += atom.max;
        w.variable ||= atom.variable;
        addCost(w, atom, source.slice(atomStart, i));
      }
    }
    return w;
  };

  const parseQuantifier = (): { min: number; max: number } | undefined => {
    const c = source[i];
    let q: { min: number; max: number } | undefined;
    if (c === "*") q = { min: 0, max: Infinity };
    else if (c === "+") q = { min: 1, max: Infinity };
    else if (c === "?") q = { min: 0, max: 1 };
    else if (c === "{") {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(i, i + 24));
      if (!m) return undefined; // a literal "{" (Annex B)
      const min = Number(m[1]);
      const max = m[2] === undefined ? min : m[3] === "" ? Infinity : Number(m[3]);
      i += m[0].length;
      if (source[i] === "?") i++;
      return { min, max };
    }
    if (!q) return undefined;
    i++;
    if (source[i] === "?") i++; // lazy
    return q;
  };

  const parseAtom = (): Width => {
    const c = source[i]!;
    if (c === "(") {
      i++;
      let lookaround = false;
      if (source[i] === "?") {
        const rest = source.slice(i, i + 3);
        if (rest.startsWith("?:")) i += 2;
        else if (rest.startsWith("?=") || rest.startsWith("?!")) {
          i += 2;
          lookaround = true;
        } else if (rest.startsWith("?<=") || rest.startsWith("?<!")) {
          i += 3;
          lookaround = true;
        }
        else if (rest.startsWith("?<")) {
          const close = source.indexOf(">", i);
          if (close === -1) fail("unterminated group name");
          i = close + 1;
        } else fail(`unknown group syntax at ${i}`);
      }
      const inner = parseAlternation();
      if (source[i] !== ")") fail("unbalanced parenthesis");
      i++;
      // A lookaround is atomic: once it matched, its other ways are never retried.
      return lookaround ? { min: 0, max: 0, variable: false, ways: 1, work: inner.work } : inner;
    }
    if (c === "[") {
      i++;
      if (source[i] === "^") i++;
      if (source[i] === "]") i++; // "[]" or "[^]"… treat "]" first as literal-ish
      while (i < source.length && source[i] !== "]") i += source[i] === "\\" ? 2 : 1;
      if (source[i] !== "]") fail("unterminated character class");
      i++;
      return { min: 1, max: 1, variable: false, ways: 1, work: 1 };
    }
    if (c === "\\") {
      const d = source[i + 1];
      if (d === "b" || d === "B") {
        i += 2;
        return { min: 0, max: 0, variable: false, ways: 1, work: 1 };
      }
      if (d === "u" && source[i + 2] === "{") i = source.indexOf("}", i) + 1;
      else if (d === "u") i += 6;
      else if (d === "x") i += 4;
      else if (d === "c") i += 3;
      else if (d === "k") i = source.indexOf(">", i) + 1;
      else if (d === "p" || d === "P") i = source.indexOf("}", i) + 1;
      else i += 2;
      // A backreference may be wider (or empty: its group matched nothing), an astral escape is 2 code units; bounded anyway.
      return { min: d === "k" || (d !== undefined && d >= "1" && d <= "9") ? 0 : 1, max: 2, variable: false, ways: 1, work: 2 };
    }
    if (c === "^" || c === "$") {
      i++;
      return { min: 0, max: 0, variable: false, ways: 1, work: 1 };
    }
    i++;
    return { min: 1, max: 1, variable: false, ways: 1, work: 1 };
  };

  /** Appends `part` (source `text`) to sequence `w`: `part` is tried once per way `w` matched so far. */
  const addCost = (w: Width, part: Width, text: string): void => {
    const before = w.work;
    w.work = capped(w.work + w.ways * part.work);
    w.ways = capped(w.ways * part.ways);
    if (before <= MAX_SPLIT_WORK && w.work > MAX_SPLIT_WORK) splitting ??= { text };
  };
  let splitting: { text: string } | undefined;

  let maxWidth = Infinity;
  let minWidth = 0;
  try {
    const w = parseAlternation();
    if (i < source.length) fail("unbalanced parenthesis");
    maxWidth = w.max;
    minWidth = w.min;
    if (splitting && !problems.some((p) => p.kind === "unbounded-quantifier"))
      warnings.push({
        kind: "ambiguous-split",
        message: `\`${clip(splitting.text)}\` follows or repeats other variable-width parts: a match attempt may take ${w.work >= COUNT_CAP ? "more than 10^15" : `~${w.work.toPrecision(2)}`} steps trying the ways to split the same characters (limit ${MAX_SPLIT_WORK}); keep one variable-width run ({m,n} on a character class), make the other parts fixed-width, or shorten the ranges`,
      });
    if (maxWidth > MAX_MATCH_WIDTH && maxWidth !== Infinity)
      problems.push({ kind: "too-long", message: `longest match is ${maxWidth} code units (limit ${MAX_MATCH_WIDTH})` });
  } catch (e) {
    problems.push({ kind: "syntax", message: e instanceof Error ? e.message : String(e) });
  }
  return { ok: problems.length === 0, problems, warnings, maxWidth, minWidth };
}

/** Counts above this are all "too many" (keeps the arithmetic exact and finite). */
const COUNT_CAP = 1e15;
const capped = (n: number): number => Math.min(n, COUNT_CAP);

/**
 * The ways and work of `atom` repeated `q.min` to `q.max` times: iteration k is entered once per way
 * the k iterations before it matched (atom.ways^k), and each way of each count of iterations is a way
 * of the whole; backtracking a greedy or lazy count costs a step per count given back or taken.
 */
function repeated(atom: Width, q: { min: number; max: number }): Width {
  const w: Width = { min: 0, max: 0, variable: false, ways: COUNT_CAP, work: COUNT_CAP };
  if (q.max === Infinity) return w;
  if (atom.ways === 1) return { ...w, ways: q.max - q.min + 1, work: capped(atom.work * q.max + (q.max - q.min)) };
  let ways = 0;
  let entries = 0;
  let power = 1; // atom.ways^k
  for (let k = 0; k <= q.max && power < COUNT_CAP; k++) {
    if (k >= q.min) ways += power;
    if (k < q.max) entries += power;
    power *= atom.ways;
  }
  if (power >= COUNT_CAP) return w;
  return { ...w, ways: capped(ways), work: capped(atom.work * entries + (q.max - q.min)) };
}

function clip(s: string): string {
  return s.length > 40 ? s.slice(0, 37) + "..." : s;
}
