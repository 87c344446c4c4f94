/**
 * Compilation of a rule list into what one scan needs: the prefix automaton over every distinct
 * prefix of every rule, and per rule a sticky RegExp (flags `y`, plus `d` when the pattern has a
 * named group `secret`, without `g`). Compiled catalogs are memoised per rules array (a WeakMap:
 * a cache keyed by identity, freed with the array), so repeated `scan(text)` calls pay nothing.
 */
import type { Rule } from "../rule.js";
import { REMOVABLE_SEQUENCES } from "./normalize.js";
import { PrefixAutomaton } from "./prefix-automaton.js";

export interface CompiledRule {
  readonly rule: Rule;
  /** Sticky copy of `rule.pattern`; its `lastIndex` is set before every exec (scans are synchronous). */
  readonly re: RegExp;
  readonly hasSecretGroup: boolean;
  /**
   * When the pattern starts with a negative lookbehind of one character class, `(?<![…])`, and has
   * no top-level alternation: entry c (c < 128) is 1 when an ASCII code unit c before the prefix
   * makes the lookbehind fail, so the engine skips the attempt without running the regex.
   */
  readonly excludedBefore: Uint8Array | undefined;
}

export interface CompiledCatalog {
  readonly rules: readonly CompiledRule[];
  readonly automaton: PrefixAutomaton;
  /** prefix id → indices (into `rules`) of the rules having that prefix, in catalog order. */
  readonly rulesByPrefix: readonly Int32Array[];
  /**
   * Prefix ids from this one on are not rule prefixes but the code units normalisation removes
   * (`REMOVABLE_SEQUENCES`): a hit on one means the text must be normalised before matching.
   */
  readonly normalizeFrom: number;
}

const memo = new WeakMap<readonly Rule[], CompiledCatalog>();

/** Compiles `rules` (memoised by array identity). Throws TypeError if a rule has no or an empty prefix. */
export function compileRules(rules: readonly Rule[]): CompiledCatalog {
  const hit = memo.get(rules);
  if (hit) return hit;
  const prefixIds = new Map<string, number>();
  const byPrefix: number[][] = [];
  const compiled = rules.map((rule, index): CompiledRule => {
    if (rule.prefixes.length === 0) throw new TypeError(`rule ${rule.id}: no prefixes`);
    for (const p of rule.prefixes) {
      if (p.length === 0) throw new TypeError(`rule ${rule.id}: empty prefix`);
      let id = prefixIds.get(p);
      if (id === undefined) {
        id = byPrefix.length;
        prefixIds.set(p, id);
        byPrefix.push([]);
      }
      if (!byPrefix[id]!.includes(index)) byPrefix[id]!.push(index);
    }
    const hasSecretGroup = rule.pattern.source.includes("(?<secret>");
    let flags = rule.pattern.flags.replace(/[gyd]/g, "") + "y";
    if (hasSecretGroup) flags += "d";
    return { rule, re: new RegExp(rule.pattern.source, flags), hasSecretGroup, excludedBefore: lookbehindTable(rule.pattern) };
  });
  const catalog: CompiledCatalog = {
    rules: compiled,
    automaton: new PrefixAutomaton([...prefixIds.keys(), ...REMOVABLE_SEQUENCES]),
    rulesByPrefix: byPrefix.map((l) => Int32Array.from(l)),
    normalizeFrom: prefixIds.size,
  };
  memo.set(rules, catalog);
  return catalog;
}

/** See {@link CompiledRule.excludedBefore}. The class is evaluated by the regex engine itself (same flags). */
export function lookbehindTable(pattern: RegExp): Uint8Array | undefined {
  const m = /^\(\?<!(\[(?:\\.|[^\]\\])*\])\)/.exec(pattern.source);
  if (!m || hasTopLevelAlternation(pattern.source)) return undefined;
  let cls: RegExp;
  try {
    cls = new RegExp(`^${m[1]}$`, pattern.flags.replace(/[gyd]/g, ""));
  } catch {
    return undefined;
  }
  const table = new Uint8Array(128);
  for (let c = 0; c < 128; c++) if (cls.test(String.fromCharCode(c))) table[c] = 1;
  return table;
}

/** True when `source` has a `|` outside every group and character class. */
function hasTopLevelAlternation(source: string): boolean {
  let depth = 0;
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === "\\") i++;
    else if (inClass) inClass = c !== "]";
    else if (c === "[") inClass = true;
    else if (c === "(") depth++;
    else if (c === ")") depth--;
    else if (c === "|" && depth === 0) return true;
  }
  return false;
}
