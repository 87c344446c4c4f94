/**
 * The scan engine. One pass of a prefix automaton over the normalised text finds every occurrence of
 * every rule's literal prefixes; only there is the rule's sticky pattern run, then its optional
 * `validate`, then the central list of documented example values. Overlapping findings are resolved
 * (a finding of a generic rule, `Rule.generic`, that contains a finding of another rule is dropped
 * for it; otherwise a finding contained in another is dropped; ties: longer first, then catalog
 * order), suppressions
 * are applied (`teammem:allow` on the line, allowlisted fingerprints), and offsets are mapped back to
 * the original text.
 *
 * Cost: O(n) for the automaton + Σ over prefix hits of the rule's match attempt, each bounded by the
 * rule's longest match (quantifiers are bounded: see engine/safety.ts). After a rule matches at
 * [s, e), its later prefix hits inside [s, e) are skipped (like a global regex), so a run of
 * repeated prefixes inside one token costs one attempt.
 */
import type { Finding, Rule } from "./rule.js";
import { RULES } from "./rules/index.js";
import { compileRules, type CompiledCatalog } from "./engine/compile.js";
import type { QuietRange } from "./engine/prefix-automaton.js";
import { HitMemo, matchAt, Verdicts } from "./engine/match.js";
import { PairSearch } from "./pair-search.js";
import { ansiLength, normalize, normalizeLineEnds, normalizeRun, wordAround, type NormalizedText } from "./engine/normalize.js";
import { LineIndex } from "./engine/positions.js";
import { base64RunEnd, decodeBudgetFor, decodedRuns, hasBase64Run, MAX_DECODE_DEPTH, type DecodeBudget } from "./engine/decode.js";
import { DEFAULT_FINGERPRINT_KEY, fingerprint } from "./fingerprint.js";
import { MAX_PART, seamAt, tokenRunEnd, type Seam } from "./engine/joins.js";

/** The marker that suppresses findings on its line. */
export const ALLOW_MARKER = "teammem:allow";

export interface ScanOptions {
  /** Rules to run; default: the whole catalog ({@link RULES}). */
  readonly rules?: readonly Rule[];
  /** Extra rules run after `rules` (e.g. an organisation's custom rules from the config file). */
  readonly customRules?: readonly Rule[];
  /** Per-installation key for fingerprints; default: a fixed public key (fingerprints then only compare within one code base). */
  readonly fingerprintKey?: string | Uint8Array;
  /** Fingerprints (as in {@link Finding.fingerprint}) never reported. */
  readonly allowFingerprints?: Iterable<string>;
  /** Honour `teammem:allow` markers (default true). A server re-scan may turn this off. */
  readonly allowMarker?: boolean;
  /**
   * Decode encoded runs (base64, base64url, percent-encoding, JSON `\u` escapes, HTML character
   * references) and scan them again, up to two levels deep (default true; engine/decode.ts).
   */
  readonly decode?: boolean;
}

/** A finding with offsets, before positions are computed (internal shape shared with redact). */
export interface Span {
  /** UTF-16 offsets into the ORIGINAL text; `end` exclusive. */
  readonly start: number;
  readonly end: number;
  readonly rule: Rule;
  readonly fingerprint: string;
  readonly preview: string;
  /** How the value was encoded where it was found (`base64`, `percent`, `base64/json-unicode` …); absent for plain text. */
  readonly encoding?: string;
}

const combined = new WeakMap<readonly Rule[], WeakMap<readonly Rule[], readonly Rule[]>>();

function catalogFor(options: ScanOptions): CompiledCatalog {
  const base = options.rules ?? RULES;
  const extra = options.customRules;
  if (!extra || extra.length === 0) return compileRules(base);
  let inner = combined.get(base);
  if (!inner) combined.set(base, (inner = new WeakMap()));
  let all = inner.get(extra);
  if (!all) inner.set(extra, (all = [...base, ...extra]));
  return compileRules(all);
}

/**
 * Finds credentials in `text`; returns spans in the original text, ordered by start. Internal
 * building block of {@link scan} and {@link redact}.
 */
export function scanSpans(text: string, options: ScanOptions = {}): Span[] {
  return findSpans(text, options, new LineIndex(text), toSpan);
}

/** One rule's match, before overlaps and suppressions are resolved. Offsets in the text it was found in. */
interface RawMatch {
  start: number;
  end: number;
  /** Index into the compiled catalog's rules. */
  readonly rule: number;
  readonly value: string;
  /** Id of the literal prefix the value starts with (-1: the value does not start with it). */
  readonly prefix: number;
  /** Set for a match found in decoded text (see engine/decode.ts). */
  readonly encoding?: string;
}

/**
 * Every rule's matches in `text` (offsets in `text`). One pass of the prefix automaton; it also
 * knows what normalisation changes (prefix ids from `normalizeFrom` to `gateFrom`; engine/normalize.ts):
 * - a CR stops the pass, and the search restarts on the text with its line ends normalised (the CR
 *   of a CRLF removed, a lone CR read as LF: removing them joins nothing);
 * - a backslash escape or an invisible character (the other triggers) makes the pass read the word
 *   around it once (`splitsToken`: normalised in a scratch buffer, a walk of the automaton): only
 *   when a rule prefix starts in it before a removal may that removal split a token. The triggers of
 *   the rest of the word are muted (no call per trigger in a word of dense removals). At the first
 *   such word the triggers are muted for good, the pass reads on, and the whole text normalised
 *   (engine/normalize.ts, `normalize`) is searched as well. Its matches come first: a match of the
 *   text as read is kept only where none of the same rule overlaps it, so a removal that glues a
 *   token to a word (`word\u00ADghp_…`, `word\_ghp_…`) loses no finding the text gives as written.
 * Ordinary text (no CR, and no removal in a word holding a prefix before it) is thus read once.
 * With `gateHits`, the first pass over `text` appends the starts of the decode layer's base64
 * gates (engine/decode.ts, `base64Gates`); after a restart at a CR, or when the catalog has no
 * gates, it holds `[-1]` (unknown: the decode layer searches every run).
 */
function matchText(text: string, catalog: CompiledCatalog, gateHits?: number[]): RawMatch[] {
  const { rules, rulesByPrefix, joins, prefixContains, normalizeFrom, gateFrom, reachAfter, reachBefore } = catalog;
  // Until a text holds a base64 run long enough to be decoded, the gates' automaton is not built
  // (a process running a hook scans one short text): in a text without such a run no gate hit can
  // matter. Once built it reads every text (the run check is ~half of a plain pass over prose).
  const automaton =
    gateHits === undefined || gateHits[0] === -1 ? catalog.automaton : (catalog.gatedAutomaton(false) ?? (hasBase64Run(text) ? catalog.gatedAutomaton(true)! : catalog.automaton));
  let t = text;
  // For removals outside a prefix's word: how far the matches of the prefixes seen so far may read
  // (catalog.reachAfter), and where the last word holding a removal ended.
  let reach = 0;
  let removalsUntil = -Infinity; // none yet (-1 made every pair-rule ID within reachBefore of the text's start "split")
  let skipUntil: Int32Array | undefined; // per rule: end of its last match (lazily, most texts have none)
  let pairs: PairSearch | undefined; // the pair rules' positions in `t` (lazily, at the first ID)
  const verdicts = new Verdicts(); // validators are pure: verdicts hold in the normalised text too
  let memo = new HitMemo(); // positions in `t`: a new one after normalisation
  let out: RawMatch[] = [];
  let gateSink = gateHits;
  /** A word whose removal may split a token has been read: `t` is searched normalised as well. */
  let splitting = false;
  let scratch: Uint16Array | undefined; // a word normalised (splitsToken), grown as needed
  // Seams after prefix hits where no rule matched (engine/joins.ts), positions in `t`; the token
  // run last read from a missed hit ([runFrom, runEnd): later hits inside it read it no more).
  // Only a prefix whose rules may match across a seam (catalog.joins) reads its run: not `://`
  // (every URL rule's match holds an `@`, no token character) unless an `@` follows close enough.
  let seams: SeamAt[] = [];
  let runFrom = -1;
  let runEnd = -1;
  const noteMiss = (start: number, prefixId: number): void => {
    const join = joins[prefixId];
    if (join === undefined || (start >= runFrom && start < runEnd)) return;
    if (join.literal !== undefined && !memo.holds(t, join.literal, start, join.within)) return;
    runFrom = start;
    const end = tokenRunEnd(t, start, t.length);
    if (end - start > MAX_PART || end === runEnd) {
      runEnd = end;
      return;
    }
    runEnd = end;
    // A line break is a seam only for a checksum rule (matchJoined).
    if (!join.lineBreak && t.charCodeAt(end) === 10) return;
    const seam = seamAt(t, end);
    if (seam === undefined) return;
    const secondEnd = tokenRunEnd(t, seam.next, seam.next + MAX_PART);
    if (end - start + (secondEnd - seam.next) + 1 >= join.shortest) seams.push({ start, end, prefixId, seam, secondEnd });
  };
  // Gate hits before `until` (the end of the base64 run of the last gate kept: one hit per run is
  // enough) are not even reported; nor the triggers after the CR's before `mutedUntil` (the end of
  // the last word read).
  const quiet: QuietRange = { from: gateFrom, until: 0, mutedFrom: normalizeFrom + 1, mutedTo: gateFrom, mutedUntil: 0 };
  const onHit = (start: number, prefixId: number): boolean => {
    if (prefixId >= normalizeFrom) {
      if (prefixId < gateFrom) {
        if (prefixId === normalizeFrom) return true; // a CR (none is left after the restart)
        const word = wordAround(t, start);
        if (scratch === undefined || scratch.length < word.end - word.start) scratch = new Uint16Array(Math.max(256, 2 * (word.end - word.start)));
        const run = normalizeRun(t, word.start, word.end, scratch);
        if (run.lastRemoval >= 0) removalsUntil = word.end;
        if (word.start < reach) splitting = true;
        else if (run.lastRemoval > 0) splitting = catalog.wordCheck().splits(scratch, run.length, run.lastRemoval, run.lastUrlRemoval);
        quiet.mutedUntil = splitting ? Infinity : word.end;
        return false;
      }
      if (gateSink !== undefined && start >= quiet.until) {
        quiet.until = base64RunEnd(t, start);
        gateSink.push(start);
      }
      return false;
    }
    if (reachAfter[prefixId] !== 0 && quiet.mutedUntil !== Infinity && catalog.opensReach(prefixId, t, start)) {
      reach = Math.max(reach, start + reachAfter[prefixId]!);
      if (removalsUntil > start - reachBefore[prefixId]!) {
        splitting = true;
        quiet.mutedUntil = Infinity;
      }
    }
    const candidates = rulesByPrefix[prefixId]!;
    let missed = true;
    // Every rule of the prefix refuses a hit without its literal close after it (`://` without `@`).
    const need = prefixContains[prefixId];
    const refused = need !== undefined && !memo.holds(t, need.literal, start, need.within);
    for (let k = 0; k < candidates.length; k++) {
      const r = candidates[k]!;
      if (skipUntil !== undefined && start < skipUntil[r]!) {
        missed = false;
        continue;
      }
      if (refused) continue;
      const cr = rules[r]!;
      const found = cr.rule.pair !== undefined ? (pairs ??= new PairSearch(t, verdicts)).matchAt(cr, start) : matchAt(cr, t, start, verdicts, memo);
      if (found === undefined) continue;
      missed = false;
      (skipUntil ??= new Int32Array(rules.length))[r] = found.matchEnd;
      out.push({ start: found.start, end: found.end, rule: r, value: found.value, prefix: found.start === start ? prefixId : -1 });
    }
    if (missed) noteMiss(start, prefixId);
    return false;
  };
  const restart = (next: string): void => {
    t = next;
    skipUntil = undefined;
    pairs = undefined;
    memo = new HitMemo();
    out = [];
    seams = [];
    runFrom = runEnd = -1;
  };
  let lineEnds: NormalizedText | undefined;
  if (automaton.forEachHit(t, onHit, quiet)) {
    // Gate hits in the normalised text are not offsets in `text`: the decode layer searches instead.
    gateHits?.splice(0, gateHits.length, -1);
    gateSink = undefined;
    lineEnds = normalizeLineEnds(text);
    restart(lineEnds.text);
    quiet.until = Infinity;
    quiet.mutedUntil = 0;
    splitting = false;
    reach = 0;
    removalsUntil = -Infinity;
    automaton.forEachHit(t, onHit, quiet);
  }
  if (!splitting && seams.length > 0) matchJoined(t, catalog, seams, out);
  if (splitting) {
    gateSink = undefined;
    const plain = out;
    const plainText = t;
    const norm = normalize(t);
    restart(norm.text);
    // Neither triggers nor gate hits are wanted from the normalised text.
    automaton.forEachHit(t, onHit, { from: normalizeFrom, until: Infinity, mutedFrom: 0, mutedTo: 0, mutedUntil: 0 });
    if (seams.length > 0) matchJoined(t, catalog, seams, out);
    for (const m of out) {
      m.start = norm.toOriginal(m.start);
      m.end = norm.toOriginal(m.end - 1) + 1;
    }
    // A match of the text as read counts only where the normalised text has none of its rule: an
    // equal span holds the removed code units in its value (a URL password's `[^@]` class reads a
    // soft hyphen too), and the fingerprint is the value as shown.
    // Nor does one holding an ANSI escape sequence (`password=ESC[38;5;196m…` reads `ESC[38` up to
    // the `;`): terminal colours are no part of a secret.
    if (plain.length > 0) {
      const seen = out.length === 0 ? undefined : overlapTest(out, out.length);
      const ansi = ansiFinder(plainText);
      const kept = plain.filter((m) => !ansi.holds(m.start, m.end) && (seen === undefined || !seen(m.rule, m.start, m.end)));
      out = mergeByStart(kept, out);
    }
  }
  if (lineEnds !== undefined) {
    for (const m of out) {
      m.start = lineEnds.toOriginal(m.start);
      m.end = lineEnds.toOriginal(m.end - 1) + 1;
    }
  }
  return out;
}

/**
 * A seam found after a missed prefix hit: the first part is [start, end) of the text, from the hit
 * of prefix `prefixId`; the second [seam.next, secondEnd).
 */
interface SeamAt {
  readonly start: number;
  readonly end: number;
  readonly prefixId: number;
  readonly seam: Seam;
  readonly secondEnd: number;
}

/** Code units before a prefix hit kept in its joined text: the rules' start boundaries read them. */
const JOIN_CONTEXT = 8;

/** Shortest joined token tried across a line break (the catalog's shortest checksum token is longer). */
const MIN_LINE_JOIN = 24;

/**
 * The matches across the `seams` of `text` (engine/joins.ts), appended to `out` with offsets in
 * `text`: from the match's start in the first part to its end in the second, `encoding` the
 * seam's kind. Each seam's prefix rules (not the pair rules) are tried at the hit in the joined
 * text (context, first part, second part, the code unit after it); a match that does not cross
 * the seam (the plain text's business), or that crosses a line break for a rule without a
 * checksum, is dropped. Cost: O(Σ parts), each part at most MAX_PART and read for one seam (two at
 * most: a literal between two operators), plus one match attempt per prefix rule per seam.
 */
function matchJoined(text: string, catalog: CompiledCatalog, seams: readonly SeamAt[], out: RawMatch[]): void {
  const verdicts = new Verdicts();
  for (const { start, end, prefixId, seam, secondEnd } of seams) {
    const candidates = catalog.rulesByPrefix[prefixId]!;
    const lineBreak = seam.kind === "line-break";
    if (lineBreak && !candidates.some((r) => catalog.rules[r]!.rule.checksum === true)) continue;
    if (lineBreak && end - start + secondEnd - seam.next < MIN_LINE_JOIN) continue;
    const from = Math.max(0, start - JOIN_CONTEXT);
    const joined = text.slice(from, end) + text.slice(seam.next, secondEnd + 1);
    const cut = end - from;
    for (const r of candidates) {
      const cr = catalog.rules[r]!;
      if (cr.rule.pair !== undefined || (lineBreak && cr.rule.checksum !== true)) continue;
      const m = matchAt(cr, joined, start - from, verdicts);
      if (m === undefined || m.start >= cut || m.end <= cut || m.end > cut + secondEnd - seam.next) continue;
      out.push({ start: from + m.start, end: seam.next + (m.end - cut), rule: r, value: m.value, prefix: m.start === start - from ? prefixId : -1, encoding: seam.kind });
    }
  }
}

/**
 * `holds(start, end)`: does `text[start, end)` hold the start of an ANSI escape sequence
 * (engine/normalize.ts, `ansiLength`)? Asked for spans ordered by start, all of them together cost
 * O(|text|): the next ESC at or after the last start is kept, not searched for again per span (a
 * search per span to the next ESC, or to the end of a text with none, was quadratic: 250 000 AWS
 * key IDs on a 5 MB line took 8 s). A span starting before the previous one searches again.
 */
function ansiFinder(text: string): { holds(start: number, end: number): boolean } {
  let from = 0;
  let next = text.indexOf("\x1b"); // first ESC at or after `from`; -1: none
  return {
    holds(start, end) {
      if (next === -1 && start >= from) return false;
      if (start < from || next < start) next = text.indexOf("\x1b", start);
      from = start;
      for (let i = next; i !== -1 && i < end; i = text.indexOf("\x1b", i + 1)) if (ansiLength(text, i) > 0) return true;
      return false;
    },
  };
}

/** The matches of `a` and `b` (each ordered by start, mostly) in one list ordered by start where both are. O(|a| + |b|). */
function mergeByStart(a: readonly RawMatch[], b: readonly RawMatch[]): RawMatch[] {
  const merged: RawMatch[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) merged.push(b[j]!.start < a[i]!.start ? b[j++]! : a[i++]!);
  while (i < a.length) merged.push(a[i++]!);
  while (j < b.length) merged.push(b[j++]!);
  return merged;
}

/**
 * The matches of the encoded runs of `text` (engine/decode.ts), decoded and scanned again down to
 * {@link MAX_DECODE_DEPTH}, with offsets in `text`: a match covers the encoded characters it came
 * from, appended to `out` (a loop, not a spread: a text can hold more matches than a call has
 * arguments). The decoded runs are scanned together, joined by LF (one scan however many runs: a text of
 * many short runs costs no per-run scan); a match across two runs is dropped. A match of an escape
 * word that covers no escape sequence is left out when the matches of `text` itself (`out` as
 * given) hold a match of the same rule overlapping it; without one it is kept: an escape right before the token
 * (`%3Aghp_…`, `\u003cghp_…`) makes the plain text refuse its start (the escape's hex digit touches
 * it), while the decoded text (`:ghp_…`, `<ghp_…`) shows the real neighbour.
 */
function matchDecoded(text: string, catalog: CompiledCatalog, depth: number, budget: DecodeBudget, gateHits: number[], out: RawMatch[]): void {
  const runs = decodedRuns(text, budget, gateHits[0] === -1 ? undefined : gateHits, catalog.seamGates());
  if (runs.count === 0) return;
  const plainCount = out.length;
  const joined = runs.joined();
  const innerGates = gatesFor(catalog);
  const inner = matchText(joined, catalog, depth < MAX_DECODE_DEPTH ? innerGates : undefined);
  if (depth < MAX_DECODE_DEPTH) matchDecoded(joined, catalog, depth + 1, budget, innerGates, inner);
  let seen: ((rule: number, start: number, end: number) => boolean) | undefined;
  for (const m of inner) {
    const i = runs.runAt(m.start);
    const base = runs.base(i);
    if (m.end - base > runs.length(i)) continue; // crosses into the next run
    const [start, end] = runs.toOriginal(i, m.start - base, m.end - base);
    if (end - start === m.end - m.start && m.encoding === undefined && (seen ??= overlapTest(out, plainCount))(m.rule, start, end)) continue;
    const encoding = runs.encoding(i);
    // A literal, not a spread of `m`: one shape, no property copy loop (~50 000 matches per MB).
    out.push({ start, end, rule: m.rule, value: m.value, prefix: m.prefix, encoding: m.encoding === undefined ? encoding : `${encoding}/${m.encoding}` });
  }
}

/**
 * A test of whether the first `count` of `matches` hold a match of rule `rule` overlapping
 * [start, end). Built in O(m log m) for m matches, each test O(log m).
 */
function overlapTest(matches: readonly RawMatch[], count: number): (rule: number, start: number, end: number) => boolean {
  const byRule = new Map<number, { starts: number[]; maxEnds: number[] }>();
  for (const m of matches.slice(0, count).sort((a, b) => a.start - b.start)) {
    let r = byRule.get(m.rule);
    if (!r) byRule.set(m.rule, (r = { starts: [], maxEnds: [] }));
    r.maxEnds.push(Math.max(m.end, r.maxEnds[r.maxEnds.length - 1] ?? -1));
    r.starts.push(m.start);
  }
  return (rule, start, end) => {
    const r = byRule.get(rule);
    if (!r) return false;
    // The last match starting before `end`; the furthest end among it and those before it.
    let lo = 0;
    let hi = r.starts.length - 1;
    if (r.starts[0]! >= end) return false;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (r.starts[mid]! < end) lo = mid;
      else hi = mid - 1;
    }
    return r.maxEnds[lo]! > start;
  };
}

/** An empty list for a scan's gate hits, or `[-1]` (search every run) when the catalog has no gates. */
const gatesFor = (catalog: CompiledCatalog): number[] => (catalog.hasGates ? [] : [-1]);

/** What a kept match becomes: a {@link Span} (redact) or a {@link Finding} (scan), made once, no copy. */
type Emit<T> = (start: number, end: number, rule: Rule, fingerprint: string, preview: string, encoding: string | undefined) => T;

const toSpan: Emit<Span> = (start, end, rule, fingerprint, preview, encoding) =>
  encoding === undefined ? { start, end, rule, fingerprint, preview } : { start, end, rule, fingerprint, preview, encoding };

/** Order of overlap resolution: by start, longer first, plain before decoded, catalog order. */
const byPosition = (a: RawMatch, b: RawMatch): number =>
  a.start - b.start || b.end - a.end || (a.encoding === undefined ? 0 : 1) - (b.encoding === undefined ? 0 : 1) || a.rule - b.rule;

/**
 * The kept matches of `text`, ordered by start, each made by `emit`, with the caller's line table
 * of `text` (built lazily; shared so `scan` reads the lines once).
 */
function findSpans<T>(text: string, options: ScanOptions, lines: LineIndex, emit: Emit<T>): T[] {
  const catalog = catalogFor(options);
  const decode = options.decode !== false;
  const gateHits = gatesFor(catalog);
  const found = matchText(text, catalog, decode ? gateHits : undefined);
  if (decode) matchDecoded(text, catalog, 1, decodeBudgetFor(text.length), gateHits, found);
  if (found.length === 0) return [];

  // Overlaps: drop spans contained in a kept one. The plain matches mostly come in order already
  // (a line of 250 000 findings then costs one pass, not a sort).
  for (let i = 1; i < found.length; i++) {
    if (byPosition(found[i - 1]!, found[i]!) > 0) {
      found.sort(byPosition);
      break;
    }
  }
  const key = options.fingerprintKey ?? DEFAULT_FINGERPRINT_KEY;
  const allowed = options.allowFingerprints ? new Set([...options.allowFingerprints].map((f) => f.toLowerCase())) : undefined;
  const markerLines = options.allowMarker === false ? undefined : markerLineSet(text, lines);
  const out: T[] = [];
  const prefixes = catalog.automaton.prefixes;
  const previews: string[] = []; // per prefix id: the prefix + `****`
  // One HMAC per distinct value (~1.3 µs each): a text repeating one credential thousands of times
  // (a log line, a pasted table) pays it once.
  const fingerprints = new Map<string, string>();
  const yielding = yieldingContainers(found, catalog);
  let maxEnd = -1;
  for (let i = 0; i < found.length; i++) {
    const m = found[i]!;
    if (m.end <= maxEnd || yielding?.[i] === 1) continue;
    maxEnd = m.end;
    const { start, end, value, prefix } = m;
    if (markerLines && (markerLines.has(lines.lineOf(start)) || markerLines.has(lines.lineOf(end)))) continue;
    const material = catalog.rules[m.rule]!.rule.fingerprintOf?.(value) ?? value;
    let fp = fingerprints.get(material);
    if (fp === undefined) fingerprints.set(material, (fp = fingerprint(material, key)));
    if (allowed?.has(fp)) continue;
    const preview = prefix >= 0 && prefixes[prefix]!.length < value.length ? (previews[prefix] ??= prefixes[prefix] + "****") : "****";
    out.push(emit(start, end, catalog.rules[m.rule]!.rule, fp, preview, m.encoding));
  }
  return out;
}

/**
 * Flags (1 at index i) of the matches of generic rules (`Rule.generic`: a URL's user info) that
 * contain a match of a rule that is not generic (a vendor token as the password), and of the
 * matches of a rule with `Rule.yieldsTo` that has a match of a rule it names on the same span (the
 * any-scheme URL rule and the database one on `postgres://…`): the other match is reported instead.
 * `found` is ordered by {@link byPosition}, so the matches inside `found[i]` follow it, except
 * those of the same span, which may precede it. Undefined when none.
 * Cost: each match is looked at once per generic match starting at or before it and ending after
 * its start; a generic rule's matches do not overlap each other (a rule's later prefix hits inside
 * its match are skipped), so that is a few per match.
 */
function yieldingContainers(found: readonly RawMatch[], catalog: CompiledCatalog): Uint8Array | undefined {
  const rules = catalog.rules;
  let out: Uint8Array | undefined;
  for (let i = 0; i < found.length; i++) {
    const g = found[i]!;
    const generic = rules[g.rule]!.rule.generic === true;
    const yieldsTo = rules[g.rule]!.yieldsTo;
    if (!generic && yieldsTo === undefined) continue;
    // Same span (before or after i): a rule that is not generic, or one this rule yields to.
    const wins = (r: number): boolean => (generic && rules[r]!.rule.generic !== true) || yieldsTo?.has(r) === true;
    let inside = false;
    for (let j = i - 1; !inside && j >= 0 && found[j]!.start === g.start && found[j]!.end === g.end; j--) inside = wins(found[j]!.rule);
    for (let j = i + 1; !inside && j < found.length && found[j]!.start < g.end; j++) {
      const f = found[j]!;
      inside = f.start === g.start && f.end === g.end ? wins(f.rule) : generic && f.end <= g.end && rules[f.rule]!.rule.generic !== true;
    }
    if (inside) (out ??= new Uint8Array(found.length))[i] = 1;
  }
  return out;
}

/** 0-based numbers of the lines holding {@link ALLOW_MARKER}; undefined when there are none. O(n). */
function markerLineSet(text: string, lines: LineIndex): Set<number> | undefined {
  let p = text.indexOf(ALLOW_MARKER);
  if (p === -1) return undefined;
  const set = new Set<number>();
  for (; p !== -1; p = text.indexOf(ALLOW_MARKER, p + ALLOW_MARKER.length)) set.add(lines.lineOf(p));
  return set;
}

/**
 * Finds credentials in `text`, in order of position. Never includes a matched value: each Finding
 * carries the rule, 1-based positions in the original text (columns in UTF-16 code units, end
 * exclusive), a keyed fingerprint and a masked preview (literal prefix + `****`).
 * Linear in `text.length` for any input. Throws only if a rule is malformed (empty prefix list).
 */
export function scan(text: string, options: ScanOptions = {}): Finding[] {
  const lines = new LineIndex(text);
  return findSpans(text, options, lines, (start, end, rule, fingerprint, preview, encoding): Finding => {
    // Line numbers and columns without a position object each (a text can hold ~50 000 findings per MB).
    const line = lines.lineOf(start);
    const endLine = lines.lineOf(end);
    const finding = {
      ruleId: rule.id,
      label: rule.label,
      line: line + 1,
      column: start - lines.startOf(line) + 1,
      endLine: endLine + 1,
      endColumn: end - lines.startOf(endLine) + 1,
      offset: start,
      endOffset: end,
      fingerprint,
      preview,
    };
    return encoding === undefined ? finding : { ...finding, encoding };
  });
}

/**
 * `text` with every finding replaced by `[REDACTED:<ruleId>]` (overlapping findings are replaced
 * together, labelled by the first). Same options as {@link scan}; suppressed findings stay.
 */
export function redact(text: string, options: ScanOptions = {}): string {
  const spans = scanSpans(text, options);
  if (spans.length === 0) return text;
  const out: string[] = [];
  let pos = 0;
  for (const s of spans) {
    if (s.end <= pos) continue;
    if (s.start >= pos) {
      out.push(text.slice(pos, s.start), `[REDACTED:${s.rule.id}]`);
    }
    pos = s.end;
  }
  out.push(text.slice(pos));
  return out.join("");
}
