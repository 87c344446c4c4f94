/**
 * One rule tried at one occurrence of one of its prefixes: the rule's sticky regex runs there once,
 * then the derived token boundaries (boundaries.ts), the central list of documented example values
 * and the rule's `validate` decide. Cost: one regex attempt, bounded by the rule's longest match
 * (engine/safety.ts), plus at most one more on a shorter slice when trailing punctuation is dropped.
 *
 * Named groups: `lead` (inside a leading lookbehind) is where the token starts when its literal
 * prefix sits inside it; `glue` (optional, before `lead` in that lookbehind) is documented text that
 * may touch the token's start, checked for the start boundary in its place; `secret` is the value when the match holds context that is not part of it
 * (`AccountKey=`, `://user:password@`, a PEM header): the finding then covers only it; `body` is the
 * random part `validate` checks (default: the value).
 */
import { isKnownExample } from "../examples.js";
import { endsToken, leadStart, startsToken, trimmedEnd } from "./boundaries.js";
import type { CompiledRule, SharedTail } from "./compile.js";
import { sameString } from "./same-string.js";

export interface RuleMatch {
  /** The finding's span in the searched text (end exclusive) and its text. */
  readonly start: number;
  readonly end: number;
  readonly value: string;
  /** End of the whole regex match (later prefix hits of the rule before it are skipped). */
  readonly matchEnd: number;
}

/**
 * Tries `cr` at the prefix occurrence `prefixStart` of `text`; undefined when it does not report there.
 * `verdicts` (one per searched text) remembers the validator's verdicts.
 */
export function matchAt(cr: CompiledRule, text: string, prefixStart: number, verdicts?: Verdicts, memo?: HitMemo): RuleMatch | undefined {
  const b = cr.boundary;
  // Checked before the regex runs (a few code units read), so a run of repeated prefixes glued to
  // each other (`glpat-a-glpat-a-…`) costs no regex attempt.
  if (b !== undefined && !cr.hasLeadGroup && !startsToken(b, text, prefixStart)) return undefined;
  if (cr.contains !== undefined && !(memo ?? new HitMemo()).holds(text, cr.contains, prefixStart, cr.containsWithin)) return undefined;
  if (cr.preCheck !== undefined) {
    // Group offsets (the `d` flag) cost several times a plain match: a plain match first, and its
    // validator on the checked group, turns a refused near miss (a placeholder URL) away cheaply.
    // The early refusal is final only when the `secret` group does not end the match (otherwise
    // trailing punctuation trimming below could change what is validated).
    let m0: RegExpExecArray | null;
    let secret: string | undefined;
    let checked: string | undefined;
    if (cr.tail !== undefined) {
      // The rest after the lookbehind is matched once for every rule that shares it (the URL rules).
      cr.leadTest!.lastIndex = prefixStart;
      if (!cr.leadTest!.test(text)) return undefined;
      m0 = (memo ?? new HitMemo()).tailMatch(cr.tail, text, prefixStart);
      if (m0 === null) return undefined;
      secret = m0[cr.tail.secret];
      checked = (cr.hasBodyGroup && cr.tail.body > 0 ? m0[cr.tail.body] : undefined) ?? secret;
    } else {
      cr.preCheck.lastIndex = prefixStart;
      m0 = cr.preCheck.exec(text);
      if (m0 === null) return undefined;
      secret = cr.preCheckSecret > 0 ? m0[cr.preCheckSecret] : m0.groups?.["secret"];
      checked = (cr.hasBodyGroup ? (cr.preCheckBody > 0 ? m0[cr.preCheckBody] : m0.groups?.["body"]) : undefined) ?? secret;
    }
    if (secret !== undefined && checked !== undefined && !m0[0].endsWith(secret) && !validates(cr, checked, verdicts)) return undefined;
  }
  if (!cr.hasLeadGroup && !cr.hasSecretGroup && !cr.hasBodyGroup) return plainMatchAt(cr, text, prefixStart, verdicts);
  cr.re.lastIndex = prefixStart;
  let m = cr.re.exec(text);
  if (m === null) return undefined;
  const lead = cr.hasLeadGroup ? m.indices?.groups?.["lead"] : undefined;
  let tokenStart = lead ? lead[0] : m.index;
  if (lead && b !== undefined) {
    // A lead that swallowed an escape's letter or hex digits starts after them, if it still matches there.
    const from = leadStart(text, lead[0], lead[1]);
    if (from !== lead[0]) {
      cr.re.lastIndex = m.index - from;
      const again = cr.re.exec(text.slice(from));
      if (again === null || again.indices?.groups?.["lead"]?.[0] !== 0 || again[0].length !== m[0].length) return undefined;
      tokenStart = from;
    }
  }
  // Documented text glued to the lead (`bot` of `/bot<token>/`): the start boundary lies before it.
  const glue = lead ? m.indices?.groups?.["glue"] : undefined;
  const boundaryStart = glue !== undefined && glue[1] === tokenStart ? glue[0] : tokenStart;
  const matchEnd = m.index + m[0].length;
  const secretSpan = cr.hasSecretGroup ? m.indices?.groups?.["secret"] : undefined;
  if (b !== undefined) {
    if ((cr.hasLeadGroup && !startsToken(b, text, boundaryStart)) || !endsToken(b, text, secretSpan ? secretSpan[1] : matchEnd)) return undefined;
    // Trailing punctuation swallowed by a variable-length body (`__token__`, `token.`): keep the
    // shorter match when the pattern still matches it exactly.
    if (!secretSpan || secretSpan[1] === matchEnd) {
      const end = trimmedEnd(b, text, secretSpan ? secretSpan[0] : tokenStart, matchEnd);
      if (end < matchEnd) {
        cr.re.lastIndex = m.index;
        const shorter = cr.re.exec(text.slice(0, end));
        if (shorter !== null && shorter.index + shorter[0].length === end) m = shorter;
      }
    }
  }
  const groups = m.indices?.groups;
  const secret = cr.hasSecretGroup ? groups?.["secret"] : undefined;
  const [start, end] = secret ?? [tokenStart, m.index + m[0].length];
  const value = secret ? m.groups!["secret"]! : start === m.index ? m[0] : text.slice(start, end);
  if (value.length === 0 || isKnownExample(value) || (value !== m[0] && isKnownExample(m[0]))) return undefined;
  if (cr.rule.validate && !validates(cr, (cr.hasBodyGroup ? m.groups?.["body"] : undefined) ?? value, verdicts)) return undefined;
  return { start, end, value, matchEnd };
}

/**
 * {@link matchAt} for a rule whose pattern has no `lead`, `secret` or `body` group (most vendor
 * tokens): the same checks on the match's end alone, read from the sticky regex's `lastIndex`
 * after `test`, so no match array is made for a hit the checks then refuse (a line of 250 000 AWS
 * key IDs ending in `EXAMPLE`).
 */
function plainMatchAt(cr: CompiledRule, text: string, start: number, verdicts: Verdicts | undefined): RuleMatch | undefined {
  const re = cr.re;
  re.lastIndex = start;
  if (!re.test(text)) return undefined;
  const matchEnd = re.lastIndex;
  let end = matchEnd;
  const b = cr.boundary;
  if (b !== undefined) {
    if (!endsToken(b, text, matchEnd)) return undefined;
    // Trailing punctuation swallowed by a variable-length body: the shorter match when the pattern still matches it exactly.
    const trimmed = trimmedEnd(b, text, start, matchEnd);
    if (trimmed < matchEnd) {
      re.lastIndex = start;
      if (re.test(text.slice(0, trimmed)) && re.lastIndex === trimmed) end = trimmed;
    }
  }
  if (end === start) return undefined;
  const value = text.slice(start, end);
  if (isKnownExample(value)) return undefined;
  if (cr.rule.validate && !validates(cr, value, verdicts)) return undefined;
  return { start, end, value, matchEnd };
}

/**
 * The rule's validator on `checked`; a throwing validator rejects (its error could quote the value).
 * With `verdicts`, a string already checked for the rule is not checked again.
 */
export function validates(cr: CompiledRule, checked: string, verdicts?: Verdicts): boolean {
  const validate = cr.rule.validate;
  if (validate === undefined) return true;
  const known = verdicts?.get(cr, checked);
  if (known !== undefined) return known;
  let verdict: boolean;
  try {
    verdict = validate(checked);
  } catch {
    verdict = false;
  }
  verdicts?.set(cr, checked, verdict);
  return verdict;
}

/**
 * What the prefix occurrences of one searched text share (one per text; a normalised text gets a
 * new one): the last match of each shared tail (compile.ts, `SharedTail`) with its position, so
 * the rules that share it match it once per occurrence; and per `Rule.contains` literal, the last
 * forward search for it (from where, found where), so a text's hits, which come in increasing
 * order, find the literal with searches that each start past the previous one's answer: O(n) in
 * all, not one search per hit.
 */
export class HitMemo {
  private readonly tailAt: number[] = [];
  private readonly tailMatches: (RegExpExecArray | null)[] = [];
  private literals: string[] = [];
  private searchedFrom: number[] = [];
  private foundAt: number[] = [];

  /** The match of `tail` at `at` in `text` (sticky), or null. */
  tailMatch(tail: SharedTail, text: string, at: number): RegExpExecArray | null {
    if (this.tailAt[tail.id] === at) return this.tailMatches[tail.id]!;
    tail.re.lastIndex = at;
    const m = tail.re.exec(text);
    this.tailAt[tail.id] = at;
    this.tailMatches[tail.id] = m;
    return m;
  }

  /** Whether `literal` occurs whole in `text[at, at + within)`. */
  holds(text: string, literal: string, at: number, within: number): boolean {
    let k = this.literals.indexOf(literal);
    if (k === -1) {
      k = this.literals.push(literal) - 1;
      this.searchedFrom.push(-1);
      this.foundAt.push(-1);
    }
    const from = this.searchedFrom[k]!;
    const found = this.foundAt[k]!;
    // The last answer holds for `at` when `at` lies between where that search started and what it found.
    if (from === -1 || at < from || (found !== -1 && at > found)) {
      this.searchedFrom[k] = at;
      this.foundAt[k] = text.indexOf(literal, at);
    }
    const next = this.foundAt[k]!;
    return next !== -1 && next + literal.length - at <= within;
  }
}

/**
 * The validators' recent verdicts in one searched text, per rule: the last
 * {@link Verdicts.PER_RULE} distinct strings checked and their verdicts. A text repeating one value
 * (a placeholder URL, a key ID) thousands of times validates it once (entropy, placeholder words:
 * ~1 µs a value). Validators are pure functions of the string, so a remembered verdict is the one a
 * new call would give. Strings are compared code unit by code unit, stopping at the first
 * difference, not hashed: hashing each fresh match cost more than the cheaper validators.
 */
export class Verdicts {
  static readonly PER_RULE = 4;
  /** Slot `rule index × PER_RULE + k`: a string checked and its verdict. */
  private readonly checked: (string | undefined)[] = [];
  private readonly verdicts: boolean[] = [];
  /** Per rule index: the slot the next string goes to (0 to PER_RULE - 1). */
  private readonly next: number[] = [];

  get(cr: CompiledRule, checked: string): boolean | undefined {
    const base = cr.index * Verdicts.PER_RULE;
    for (let k = base; k < base + Verdicts.PER_RULE; k++) {
      const known = this.checked[k];
      if (known === undefined) return undefined;
      if (sameString(known, checked)) return this.verdicts[k];
    }
    return undefined;
  }

  set(cr: CompiledRule, checked: string, verdict: boolean): void {
    const k = this.next[cr.index] ?? 0;
    this.checked[cr.index * Verdicts.PER_RULE + k] = checked;
    this.verdicts[cr.index * Verdicts.PER_RULE + k] = verdict;
    this.next[cr.index] = (k + 1) % Verdicts.PER_RULE;
  }
}

