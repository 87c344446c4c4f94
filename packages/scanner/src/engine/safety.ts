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
 * - `too-long`: maximum match width over {@link MAX_MATCH_WIDTH} code units;
 * - `global-flag`: the `g` flag (the engine uses sticky matching; `g` would be ignored/misleading);
 * - `syntax`: the source does not parse (unbalanced parentheses or brackets).
 * Backreferences are allowed (bounded by the group they refer to).
 */

/** Longest match a rule may produce, in UTF-16 code units (PEM private keys need a few thousand). */
export const MAX_MATCH_WIDTH = 16_384;

export interface PatternProblem {
  readonly kind: "unbounded-quantifier" | "nested-quantifier" | "too-long" | "global-flag" | "syntax";
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
    return { min, max, variable: branches.length > 1 || branches.some((b) => b.variable) };
  };

  const parseSequence = (): Width => {
    const w: Width = { min: 0, max: 0, variable: false };
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
      } else {
        w.min += atom.min;
        w.max += atom.max;
        w.variable ||= atom.variable;
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
      return lookaround ? { min: 0, max: 0, variable: false } : inner;
    }
    if (c === "[") {
      i++;
      if (source[i] === "^") i++;
      if (source[i] === "]") i++; // "[]" or "[^]"… treat "]" first as literal-ish
      while (i < source.length && source[i] !== "]") i += source[i] === "\\" ? 2 : 1;
      if (source[i] !== "]") fail("unterminated character class");
      i++;
      return { min: 1, max: 1, variable: false };
    }
    if (c === "\\") {
      const d = source[i + 1];
      if (d === "b" || d === "B") {
        i += 2;
        return { min: 0, max: 0, variable: false };
      }
      if (d === "u" && source[i + 2] === "{") i = source.indexOf("}", i) + 1;
      else if (d === "u") i += 6;
      else if (d === "x") i += 4;
      else if (d === "c") i += 3;
      else if (d === "k") i = source.indexOf(">", i) + 1;
      else if (d === "p" || d === "P") i = source.indexOf("}", i) + 1;
      else i += 2;
      // A backreference may be wider (or empty: its group matched nothing), an astral escape is 2 code units; bounded anyway.
      return { min: d === "k" || (d !== undefined && d >= "1" && d <= "9") ? 0 : 1, max: 2, variable: false };
    }
    if (c === "^" || c === "$") {
      i++;
      return { min: 0, max: 0, variable: false };
    }
    i++;
    return { min: 1, max: 1, variable: false };
  };

  let maxWidth = Infinity;
  let minWidth = 0;
  try {
    const w = parseAlternation();
    if (i < source.length) fail("unbalanced parenthesis");
    maxWidth = w.max;
    minWidth = w.min;
    if (maxWidth > MAX_MATCH_WIDTH && maxWidth !== Infinity)
      problems.push({ kind: "too-long", message: `longest match is ${maxWidth} code units (limit ${MAX_MATCH_WIDTH})` });
  } catch (e) {
    problems.push({ kind: "syntax", message: e instanceof Error ? e.message : String(e) });
  }
  return { ok: problems.length === 0, problems, warnings, maxWidth, minWidth };
}

function clip(s: string): string {
  return s.length > 40 ? s.slice(0, 37) + "..." : s;
}
