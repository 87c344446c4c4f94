/**
 * Compilation of a rule list into what one scan needs: the prefix automaton over every distinct
 * prefix of every rule, and per rule a sticky RegExp (flags `y`, plus `d` when the pattern has a
 * named group `secret`, `body` or `lead`, without `g`) and its derived token boundary. Compiled catalogs are memoised per rules array (a WeakMap:
 * a cache keyed by identity, freed with the array), so repeated `scan(text)` calls pay nothing.
 */
import type { Rule } from "../rule.js";
import { tokenBoundary, type TokenBoundary } from "./boundaries.js";
import { REMOVABLE_SEQUENCES } from "./normalize.js";
import { PrefixAutomaton } from "./prefix-automaton.js";
import { base64Gates } from "./decode.js";

export interface CompiledRule {
  readonly rule: Rule;
  /** Sticky copy of `rule.pattern`; its `lastIndex` is set before every exec (scans are synchronous). */
  readonly re: RegExp;
  /** The pattern has a named group `secret` (the value, when the match holds context) / `body` (the part `validate` checks) / `lead` (the token starts before the prefix). */
  readonly hasSecretGroup: boolean;
  readonly hasBodyGroup: boolean;
  readonly hasLeadGroup: boolean;
  /** Derived token boundaries (engine/boundaries.ts); undefined for patterns that state their own context. */
  readonly boundary: TokenBoundary | undefined;
  /**
   * Sticky copy without the `d` flag, for a rule with a validator and a `secret` group: match.ts
   * validates from a plain match before paying for group offsets.
   */
  readonly preCheck: RegExp | undefined;
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
  /**
   * Prefix ids from this one on are the decode layer's base64 gates (engine/decode.ts,
   * `base64Gates`): their hits tell which base64 runs to decode. Equal to the automaton's prefix
   * count when the catalog has no gates (a one-byte prefix: every run is decoded).
   */
  readonly gateFrom: number;
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
    const source = rule.pattern.source;
    const hasSecretGroup = source.includes("(?<secret>");
    const hasBodyGroup = source.includes("(?<body>");
    const hasLeadGroup = source.includes("(?<lead>");
    let flags = rule.pattern.flags.replace(/[gyd]/g, "") + "y";
    if (hasSecretGroup || hasBodyGroup || hasLeadGroup) flags += "d";
    const boundary = tokenBoundary(rule.pattern, rule.prefixes);
    const preCheck = rule.validate && hasSecretGroup ? new RegExp(source, flags.replace("d", "")) : undefined;
    return {
      rule,
      preCheck,
      re: new RegExp(source, flags),
      hasSecretGroup,
      hasBodyGroup,
      hasLeadGroup,
      boundary,
    };
  });
  const rulePrefixes = [...prefixIds.keys()];
  const gates = base64Gates(rulePrefixes);
  const catalog: CompiledCatalog = {
    rules: compiled,
    automaton: new PrefixAutomaton([...rulePrefixes, ...REMOVABLE_SEQUENCES, ...(gates ?? [])]),
    rulesByPrefix: byPrefix.map((l) => Int32Array.from(l)),
    normalizeFrom: prefixIds.size,
    gateFrom: gates === undefined ? prefixIds.size + REMOVABLE_SEQUENCES.length + 1 : prefixIds.size + REMOVABLE_SEQUENCES.length,
  };
  memo.set(rules, catalog);
  return catalog;
}
