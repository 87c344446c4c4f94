/**
 * Compilation of a rule list into what one scan needs: the prefix automaton over every distinct
 * prefix of every rule, and per rule a sticky RegExp (flags `y`, plus `d` when the pattern has a
 * named group `secret` or `lead`, whose offsets match.ts reads; without `g`) and its derived token boundary. Compiled catalogs are memoised per rules array (a WeakMap:
 * a cache keyed by identity, freed with the array) and per sequence of rule objects (a new array of
 * the same rules, such as `[rule]` built per call), so repeated `scan(text)` calls pay nothing.
 */
import type { Rule } from "../rule.js";
import { atomCache, tokenAlphabet, tokenBoundary, type AtomCache, type TokenBoundary } from "./boundaries.js";
import { checkPatternSafety } from "./safety.js";
import { normalizationTriggers, removableFirstBytes } from "./normalize.js";
import { PrefixAutomaton } from "./prefix-automaton.js";
import { base64Gates, canGate, hexGates, SHORT_HEAD, type SeamGates } from "./decode.js";
import { prefixJoins, type PrefixJoins } from "./joins.js";

export interface CompiledRule {
  readonly rule: Rule;
  /** Position in the catalog's `rules`. */
  readonly index: number;
  /** Sticky copy of `rule.pattern`; its `lastIndex` is set before every exec (scans are synchronous). */
  readonly re: RegExp;
  /** The pattern has a named group `secret` (the value, when the match holds context) / `body` (the part `validate` checks) / `lead` (the token starts before the prefix). */
  readonly hasSecretGroup: boolean;
  readonly hasBodyGroup: boolean;
  readonly hasLeadGroup: boolean;
  /** Derived token boundaries (engine/boundaries.ts); undefined for patterns that state their own context. */
  readonly boundary: TokenBoundary | undefined;
  /**
   * Sticky copy without the `d` flag and with its named groups numbered (no `groups` object per
   * match: about half the cost of an exec that matches), for a rule with a validator and a `secret`
   * group: match.ts validates from a plain match before paying for group offsets.
   */
  readonly preCheck: RegExp | undefined;
  /** Index in a {@link CompiledRule.preCheck} match of the `secret` / `body` group (0: none). */
  readonly preCheckSecret: number;
  readonly preCheckBody: number;
  /**
   * For a rule with a pre-check whose pattern is a leading lookbehind and a rest that other rules
   * of the catalog share (the three URL rules: their schemes differ, `://user:password@host` does
   * not): the lookbehind alone (sticky, tested at the prefix) and the shared rest, matched once per
   * prefix occurrence for all of them (match.ts, `HitMemo`). Undefined otherwise.
   */
  readonly leadTest: RegExp | undefined;
  readonly tail: SharedTail | undefined;
  /** `rule.contains` and how far after the prefix occurrence's start it must be found (the pattern's longest match). */
  readonly contains: string | undefined;
  readonly containsWithin: number;
  /** Indices (into the catalog's rules) of the rules named by `rule.yieldsTo`; undefined when none. */
  readonly yieldsTo: ReadonlySet<number> | undefined;
}

/**
 * The part of several rules' patterns after their leading lookbehind, when it is the same source
 * with the same flags: a sticky copy with named groups numbered (no `d`), matched once per prefix
 * occurrence and reused by every rule whose lookbehind holds there (the lookbehind is zero-width
 * and refers to no group of the rest, so the rest matches the same whichever rule asks).
 */
export interface SharedTail {
  /** Index among the catalog's shared tails (the memo's slot). */
  readonly id: number;
  readonly re: RegExp;
  /** Index in a match of `re` of the `secret` / `body` group (0: none). */
  readonly secret: number;
  readonly body: number;
}

/**
 * `source` split after its leading lookbehind `(?<=…)`: [lookbehind, rest]; undefined when it does
 * not open with one or the rest is empty.
 */
export function splitLeadingLookbehind(source: string): [string, string] | undefined {
  if (!source.startsWith("(?<=")) return undefined;
  let depth = 0;
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === "\\") {
      i++;
      continue;
    }
    if (inClass) {
      if (c === "]") inClass = false;
    } else if (c === "[") inClass = true;
    else if (c === "(") depth++;
    else if (c === ")" && --depth === 0) return i + 1 < source.length ? [source.slice(0, i + 1), source.slice(i + 1)] : undefined;
  }
  return undefined;
}

/**
 * `source` with each named capturing group `(?<name>` written `(`, and each group's number (the
 * numbering is unchanged: named groups are numbered with the others, in order); undefined when the
 * source refers to a group by name (`\k<name>`).
 */
export function numberGroups(source: string): { source: string; numbers: ReadonlyMap<string, number> } | undefined {
  if (source.includes("\\k<")) return undefined;
  const numbers = new Map<string, number>();
  let out = "";
  let count = 0;
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === "\\") {
      out += c + (source[i + 1] ?? "");
      i++;
      continue;
    }
    if (inClass) {
      if (c === "]") inClass = false;
    } else if (c === "[") inClass = true;
    else if (c === "(") {
      const named = /^\(\?<([A-Za-z_$][\w$]*)>/.exec(source.slice(i, i + 40));
      if (named !== null) {
        numbers.set(named[1]!, ++count);
        out += "(";
        i += named[0].length - 1;
        continue;
      }
      if (source[i + 1] !== "?") count++;
    }
    out += c;
  }
  return { source: out, numbers };
}

export interface CompiledCatalog {
  readonly rules: readonly CompiledRule[];
  /** The rule prefixes, then what tells that a text needs normalising (see `normalizeFrom`). */
  readonly automaton: PrefixAutomaton;
  /**
   * The same prefixes (same ids), then the decode layer's base64 gates (see `gateFrom`), built on
   * the first call with `build` true (the scan asks for it at its first text holding a base64 run
   * long enough to be decoded: ~1 950 gates make 6 148 states instead of 1 327, over half of a
   * compile, and most short texts have no such run); undefined before that. The plain automaton
   * when the catalog has no gates.
   */
  readonly gatedAutomaton: (build: boolean) => PrefixAutomaton | undefined;
  /** prefix id → indices (into `rules`) of the rules having that prefix, in catalog order. */
  readonly rulesByPrefix: readonly Int32Array[];
  /**
   * prefix id → what a hit of it where no rule matched may be joined across (engine/joins.ts,
   * {@link PrefixJoins}); undefined: nothing (the scan reads no token run after such a hit).
   */
  readonly joins: readonly (PrefixJoins | undefined)[];
  /**
   * prefix id → the literal every rule of the prefix holds (`Rule.contains`, the same for all, none a
   * pair rule: the URL rules' `@`) and the longest of their `containsWithin`: a hit with no such
   * literal that close after it is refused by each of them (match.ts), so the scan tries none
   * (10 000 `://` hits per 3.6 MB of Markdown, 8 in 10 of them without an `@` close enough);
   * undefined otherwise.
   */
  readonly prefixContains: readonly ({ readonly literal: string; readonly within: number } | undefined)[];
  /**
   * Prefix ids from this one on are not rule prefixes but what normalisation changes
   * (engine/normalize.ts, `normalizationTriggers`): a hit on one means the text may need
   * normalising before matching. The first of them (id `normalizeFrom`) is the CR, whose removal
   * joins nothing.
   */
  readonly normalizeFrom: number;
  /**
   * Prefix ids from this one on are the decode layer's base64 gates (engine/decode.ts,
   * `base64Gates`) in {@link CompiledCatalog.gatedAutomaton}: their hits tell which base64 runs to
   * decode.
   */
  readonly gateFrom: number;
  /** False when the catalog has no gates (a one-byte prefix: every base64 run is decoded). */
  readonly hasGates: boolean;
  /**
   * The gates of {@link CompiledCatalog.gatedAutomaton} looked for across a line break (the decode
   * layer's wrapped base64, engine/decode.ts `SeamGates`); undefined while that automaton is not
   * built, and when the catalog has no gates.
   */
  readonly seamGates: () => SeamGates | undefined;
  /**
   * How far a removal may sit from a rule prefix and still be inside a match that reads it, for the
   * scan's local normalisation check (scan.ts), by prefix id, in code units of the text as written:
   * `reachAfter`, after the prefix's start, for a prefix of a rule whose match may hold whitespace
   * (a key block, `PrivateKey = …`, a pair rule's secret lines: {@link mayHoldWhitespace}), twice the
   * pattern's longest match (an escape doubles a character); 0 for the others, whose match is one
   * word. `reachBefore`, before it: the same for a pair rule (its secret may come first), else 0.
   */
  readonly reachAfter: Int32Array;
  readonly reachBefore: Int32Array;
  /**
   * Does the hit of prefix `prefixId` (one with a reach) at `start` of `text` open a match that may
   * reach other words? For a pair rule's prefix, when its id pattern matches there (`SKIP` is no
   * Twilio key id); true for the others.
   */
  readonly opensReach: (prefixId: number, text: string, start: number) => boolean;
  /**
   * The scan's test of a word normalised around a removal (scan.ts), built at the first call:
   * {@link WordCheck}.
   */
  readonly wordCheck: () => WordCheck;
}

/**
 * Can a match of the pattern `source` hold a space or a line break (a conservative reading of the
 * source: `\s`, `\n`, `\r`, `\t`, `\f`, `\v`, a space, `.`, a class holding one of them, a negated class
 * without `\s`)? Lookbehinds are read too, so it may say yes for a match that cannot.
 */
export function mayHoldWhitespace(source: string): boolean {
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === "\\") {
      if ("snrtfv".includes(source[i + 1] ?? "")) return true;
      i++;
    } else if (c === " " || c === ".") return true;
    else if (c === "[") {
      const negated = source[i + 1] === "^";
      let j = i + (negated ? 2 : 1);
      let body = "";
      if (source[j] === "]") body += source[j++];
      while (j < source.length && source[j] !== "]") {
        if (source[j] === "\\") {
          body += source.slice(j, j + 2);
          j += 2;
        } else body += source[j++];
      }
      i = j;
      if (negated ? !body.includes("\\s") : /\\[snrtfv]| /.test(body)) return true;
    }
  }
  return false;
}

const memo = new WeakMap<readonly Rule[], CompiledCatalog>();

/** A node of {@link bySequence}: the catalog of the rules on the path to it, and the next rules. */
interface SequenceNode {
  catalog?: CompiledCatalog;
  next?: WeakMap<Rule, SequenceNode>;
}
/**
 * Catalogs by their rules in order (a trie of WeakMaps keyed by rule object, freed with the rules),
 * consulted when the array is new: `scan(text, { rules: [rule] })` in a loop builds a new array per
 * call and would otherwise compile the rule again each time (~1.5 ms against ~0.04 ms for the scan).
 */
const bySequence: SequenceNode = {};

/**
 * Compiles `rules`, memoised by array identity and by the sequence of rule objects (a new array
 * holding the same rules in the same order gets the same catalog). Throws TypeError if a rule has
 * no or an empty prefix.
 */
export function compileRules(rules: readonly Rule[]): CompiledCatalog {
  const hit = memo.get(rules);
  if (hit) return hit;
  let node = bySequence;
  for (const rule of rules) {
    let next = node.next?.get(rule);
    if (next === undefined) (node.next ??= new WeakMap()).set(rule, (next = {}));
    node = next;
  }
  node.catalog ??= compileNew(rules);
  memo.set(rules, node.catalog);
  return node.catalog;
}

function compileNew(rules: readonly Rule[]): CompiledCatalog {
  const prefixIds = new Map<string, number>();
  const byPrefix: number[][] = [];
  const atoms = atomCache();
  // The rest after a leading lookbehind, by source and flags: shared when two pre-checked rules have it.
  const tailKeys = rules.map((rule) => {
    const split = rule.validate && rule.pattern.source.includes("(?<secret>") ? splitLeadingLookbehind(rule.pattern.source) : undefined;
    return split === undefined ? undefined : `${rule.pattern.flags.replace(/[gyd]/g, "")}/${split[1]}`;
  });
  const tailCounts = new Map<string, number>();
  for (const key of tailKeys) if (key !== undefined) tailCounts.set(key, (tailCounts.get(key) ?? 0) + 1);
  const tails = new Map<string, SharedTail>();
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
    // Group offsets cost several times a plain match (a `body` group is read as a string only).
    if (hasSecretGroup || hasLeadGroup) flags += "d";
    // A rule whose every token carries a checksum (`Rule.checksum`) needs no start boundary.
    const derived = tokenBoundary(rule.pattern, rule.prefixes, atoms);
    const boundary = rule.checksum === true && derived !== undefined ? { before: undefined, after: derived.after } : derived;
    const numbered = rule.validate && hasSecretGroup ? numberGroups(source) : undefined;
    const preCheck = rule.validate && hasSecretGroup ? new RegExp(numbered?.source ?? source, flags.replace("d", "")) : undefined;
    const key = tailKeys[index];
    let tail: SharedTail | undefined;
    let leadTest: RegExp | undefined;
    const split = key !== undefined && tailCounts.get(key)! > 1 ? splitLeadingLookbehind(source) : undefined;
    const rest = split && numberGroups(split[1]);
    const lookbehind = split && numberGroups(split[0]);
    if (key !== undefined && rest && lookbehind && (rest.numbers.get("secret") ?? 0) > 0) {
      tail = tails.get(key);
      if (tail === undefined) {
        tail = { id: tails.size, re: new RegExp(rest.source, flags.replace("d", "")), secret: rest.numbers.get("secret")!, body: rest.numbers.get("body") ?? 0 };
        tails.set(key, tail);
      }
      leadTest = new RegExp(lookbehind.source, flags.replace("d", ""));
    }
    const maxWidth = rule.contains === undefined ? 0 : checkPatternSafety(rule.pattern).maxWidth;
    if (rule.contains !== undefined && (rule.contains.length === 0 || !Number.isFinite(maxWidth))) throw new TypeError(`rule ${rule.id}: contains needs a non-empty literal and a bounded pattern`);
    return {
      leadTest,
      tail,
      contains: rule.contains,
      containsWithin: maxWidth,
      yieldsTo: undefined,
      rule,
      index,
      preCheck,
      preCheckSecret: numbered?.numbers.get("secret") ?? 0,
      preCheckBody: numbered?.numbers.get("body") ?? 0,
      re: new RegExp(source, flags),
      hasSecretGroup,
      hasBodyGroup,
      hasLeadGroup,
      boundary,
    };
  });
  const indexOfId = new Map(rules.map((r, i) => [r.id, i]));
  for (const cr of compiled) {
    const ids = cr.rule.yieldsTo?.flatMap((id) => (indexOfId.has(id) ? [indexOfId.get(id)!] : []));
    if (ids !== undefined && ids.length > 0) (cr as { yieldsTo: ReadonlySet<number> | undefined }).yieldsTo = new Set(ids);
  }
  const rulePrefixes = [...prefixIds.keys()];
  const hasGates = canGate(rulePrefixes);
  // A prefix opening with a letter or digit whose every rule derives a start boundary from it
  // (no `lead` group) is refused glued to a word (engine/boundaries.ts, startsToken): the automaton
  // need not report those hits (a decoded run of 3.75 MB of `A` against the 20-`A` prefix).
  const notAfterWord = Uint8Array.from(byPrefix, (rs, id) =>
    /^[A-Za-z0-9]/.test(rulePrefixes[id]!) && rs.every((r) => compiled[r]!.boundary?.before !== undefined && !compiled[r]!.hasLeadGroup) ? 1 : 0,
  );
  // The code units of the rule prefixes and of the gates (base64 in both alphabets) keep their own
  // symbols; the other punctuation characters and the invisible ones are read as one symbol each.
  const used = new Set<number>(Array.from("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_", (ch) => ch.charCodeAt(0)));
  for (const p of rulePrefixes) for (let i = 0; i < p.length; i++) used.add(p.charCodeAt(i));
  const triggers = normalizationTriggers((c) => used.has(c));
  // The `\/` of the rule prefix `:\/\/` (a URL in JSON) as written are no removals (the URL rules read
  // it so): the triggers are not reported inside a rule prefix.
  const hidden = { from: rulePrefixes.length + 1, to: rulePrefixes.length + triggers.prefixes.length };
  const automaton = new PrefixAutomaton([...rulePrefixes, ...triggers.prefixes], notAfterWord, triggers.aliases, hidden);
  const reachAfter = new Int32Array(rulePrefixes.length);
  const reachBefore = new Int32Array(rulePrefixes.length);
  /** By prefix id: the id patterns (sticky) of its pair rules when all its rules with a reach are pair rules. */
  const pairIds: (RegExp[] | undefined)[] = [];
  byPrefix.forEach((rs, id) => {
    for (const r of rs) {
      const { rule } = compiled[r]!;
      if (rule.pair === undefined && !mayHoldWhitespace(rule.pattern.source)) continue;
      const reach = Math.min(2 * checkPatternSafety(rule.pattern).maxWidth, 1 << 30);
      reachAfter[id] = Math.max(reachAfter[id]!, reach);
      if (rule.pair !== undefined) reachBefore[id] = Math.max(reachBefore[id]!, reach);
    }
    const reaching = rs.map((r) => compiled[r]!.rule).filter((rule) => rule.pair !== undefined || mayHoldWhitespace(rule.pattern.source));
    if (reaching.length > 0 && reaching.every((rule) => rule.pair !== undefined)) pairIds[id] = reaching.map((rule) => new RegExp(rule.pair!.id.source, rule.pair!.id.flags.replace(/[gy]/g, "") + "y"));
  });
  let gated: PrefixAutomaton | undefined;
  let seams: SeamGates | undefined;
  let words: WordCheck | undefined;
  const catalog: CompiledCatalog = {
    rules: compiled,
    automaton,
    gatedAutomaton: (build) =>
      (gated ??= !hasGates
        ? automaton
        : build
          ? new PrefixAutomaton(
              [...automaton.prefixes, ...new Set([...base64Gates(rulePrefixes, followingBytes(rulePrefixes, byPrefix, rules, atoms))!, ...hexGates(rulePrefixes)])],
              notAfterWord,
              triggers.aliases,
              hidden,
            )
          : undefined),
    rulesByPrefix: byPrefix.map((l) => Int32Array.from(l)),
    joins: byPrefix.map((rs) => prefixJoins(rs.map((r) => compiled[r]!))),
    prefixContains: byPrefix.map((rs) => {
      const literal = compiled[rs[0]!]!.contains;
      if (literal === undefined || !rs.every((r) => compiled[r]!.contains === literal && compiled[r]!.rule.pair === undefined)) return undefined;
      return { literal, within: Math.max(...rs.map((r) => compiled[r]!.containsWithin)) };
    }),
    normalizeFrom: prefixIds.size,
    gateFrom: automaton.prefixes.length,
    hasGates,
    reachAfter,
    reachBefore,
    opensReach: (id, text, start) => {
      const ids = pairIds[id];
      if (ids === undefined) return true;
      for (const re of ids) {
        re.lastIndex = start;
        if (re.test(text)) return true;
      }
      return false;
    },
    wordCheck: () => (words ??= wordCheckOf(rulePrefixes, byPrefix, compiled, reachAfter)),
    seamGates: () => {
      if (seams !== undefined || !hasGates || gated === undefined) return seams;
      const g = gated;
      const from = automaton.prefixes.length;
      let longest = 0;
      for (let id = from; id < g.prefixes.length; id++) longest = Math.max(longest, g.prefixes[id]!.length);
      return (seams = {
        longest,
        across: (text, a, e, s, t) => g.occursAcross(text, a, e, s, t, from),
        within: (text, s, t) => g.occursIn(text, s, t, from),
      });
    },
  };
  return catalog;
}

/**
 * May a removal in a word split a token? `splits(units, n, lastRemoval, lastUrlRemoval)`: `units[0, n)`
 * is the word normalised, `lastRemoval` the normalised offset before which its last removal sat
 * (`lastUrlRemoval`: the same without the JSON escapes `\/`, `\"`, `\'`, `\\`, which the URL rules
 * read as written; engine/normalize.ts, `normalizeRun`). True when a
 * rule prefix starts in the word before that offset (the removal may be inside the token it opens),
 * or anywhere in the word for a prefix of a rule whose token starts before it (a `lead` group) and
 * for a word of a prefix holding whitespace (`-----BEGIN`, `OPENSSH` … of `-----BEGIN OPENSSH
 * PRIVATE KEY-----`: the word shows only a part of it); and, for a prefix whose every rule's match
 * holds a literal (`Rule.contains`: the `@` of a URL's user info) and no whitespace, when that
 * literal follows it in the word, `lastUrlRemoval` then standing for `lastRemoval`. O(n) per literal.
 */
export interface WordCheck {
  splits(units: Uint16Array, n: number, lastRemoval: number, lastUrlRemoval: number): boolean;
}

/** See {@link WordCheck}: an automaton over the rule prefixes, those holding whitespace split into their words. */
function wordCheckOf(prefixes: readonly string[], byPrefix: readonly number[][], compiled: readonly CompiledRule[], reachAfter: Int32Array): WordCheck {
  const pieces: string[] = [];
  const anywhere: number[] = [];
  const needs: (string | undefined)[] = [];
  prefixes.forEach((p, id) => {
    const words = p.split(/\s+/).filter((w) => w.length > 0);
    const rs = byPrefix[id]!.map((r) => compiled[r]!);
    const lead = rs.some((cr) => cr.hasLeadGroup);
    const literal = reachAfter[id] === 0 && rs.every((cr) => cr.contains !== undefined && cr.contains === rs[0]!.contains) ? rs[0]!.contains : undefined;
    for (const w of words) {
      pieces.push(w);
      anywhere.push(words.length > 1 || w !== p || lead ? 1 : 0);
      needs.push(literal);
    }
  });
  const automaton = new PrefixAutomaton(pieces);
  const flags = Uint8Array.from(anywhere);
  return {
    splits(units, n, lastRemoval, lastUrlRemoval) {
      let literal: string | undefined;
      let lastAt = -1; // where the last occurrence of `literal` in the word starts
      return automaton.someHit(units, n, (id, start) => {
        const need = needs[id];
        // A URL rule's word counts only removals other than the JSON escapes it reads as written.
        const last = need === undefined ? lastRemoval : lastUrlRemoval;
        if (last < 0 || (start >= last && flags[id] === 0)) return false;
        if (need === undefined) return true;
        if (need !== literal) {
          literal = need;
          lastAt = lastIndexIn(units, n, need);
        }
        return lastAt >= start + pieces[id]!.length;
      });
    },
  };
}

/** Offset of the last occurrence of `literal` in `units[0, n)`, or −1. O(n × literal length). */
function lastIndexIn(units: Uint16Array, n: number, literal: string): number {
  outer: for (let i = n - literal.length; i >= 0; i--) {
    for (let k = 0; k < literal.length; k++) if (units[i + k] !== literal.charCodeAt(k)) continue outer;
    return i;
  }
  return -1;
}

/**
 * By prefix: the UTF-8 bytes a token may hold right after it (256 entries, 1 = possible), for the
 * prefixes shorter than SHORT_HEAD bytes whose gates the decode layer refines with them
 * (engine/decode.ts, `base64Gates`); undefined (any byte) for the others, and when a rule of the
 * prefix could match the prefix alone or may hold any character (`tokenAlphabet`). The first bytes
 * of what normalisation removes are possible too (`removableFirstBytes`: CR, `\`, the invisible
 * characters): an invisible character or a backslash escape after the prefix is removed before matching.
 */
function followingBytes(prefixes: readonly string[], byPrefix: readonly number[][], rules: readonly Rule[], atoms: AtomCache): (Uint8Array | undefined)[] {
  const removable = removableFirstBytes();
  return prefixes.map((p, id) => {
    if (Buffer.byteLength(p, "utf8") >= SHORT_HEAD) return undefined;
    const set = new Uint8Array(256);
    for (const r of byPrefix[id]!) {
      // A pair rule's matches start with its ID pattern (pair-search.ts tries that at the prefix).
      const pattern = rules[r]!.pair?.id ?? rules[r]!.pattern;
      const alphabet = checkPatternSafety(pattern).minWidth > p.length ? tokenAlphabet(pattern, atoms) : undefined;
      if (alphabet === undefined) return undefined;
      for (let c = 0; c < 128; c++) set[c] ||= alphabet[c]!;
    }
    for (const b of removable) set[b] = 1;
    return set;
  });
}
