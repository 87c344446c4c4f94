/**
 * Compilation of a rule list into what one scan needs: the prefix automaton over every distinct
 * prefix of every rule, and per rule a sticky RegExp (flags `y`, plus `d` when the pattern has a
 * named group `secret`, without `g`). Compiled catalogs are memoised per rules array (a WeakMap:
 * a cache keyed by identity, freed with the array), so repeated `scan(text)` calls pay nothing.
 */
import type { Rule } from "../rule.js";
import { PrefixAutomaton } from "./prefix-automaton.js";

export interface CompiledRule {
  readonly rule: Rule;
  /** Sticky copy of `rule.pattern`; its `lastIndex` is set before every exec (scans are synchronous). */
  readonly re: RegExp;
  readonly hasSecretGroup: boolean;
}

export interface CompiledCatalog {
  readonly rules: readonly CompiledRule[];
  readonly automaton: PrefixAutomaton;
  /** prefix id → indices (into `rules`) of the rules having that prefix, in catalog order. */
  readonly rulesByPrefix: readonly Int32Array[];
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
    return { rule, re: new RegExp(rule.pattern.source, flags), hasSecretGroup };
  });
  const catalog: CompiledCatalog = {
    rules: compiled,
    automaton: new PrefixAutomaton([...prefixIds.keys()]),
    rulesByPrefix: byPrefix.map((l) => Int32Array.from(l)),
  };
  memo.set(rules, catalog);
  return catalog;
}
