/**
 * Aho-Corasick automaton over UTF-16 code units: finds every occurrence of a set of literal
 * prefixes in one left-to-right pass, O(text length + occurrences), whatever the input.
 *
 * Representation: a complete DFA (goto and failure functions folded together) over the code units
 * that occur in some prefix. Code units are first mapped to a small "symbol" number through a dense
 * 64 Ki `Uint8Array`/`Uint16Array` (`symbolOf`, 0 = "occurs in no prefix", which sends every state
 * back to the root), so the transition table is `states × (symbols + 1)` `Int32Array` entries (the
 * extra column: where a state's outputs start); the inner
 * loop is two typed-array loads per code unit. Measured faster than one combined alternation regex
 * on Markdown (see bench/README.md).
 */

import { dfaKernel, KERNEL_CHUNK, type DfaKernel } from "./dfa-kernel.js";

/** One occurrence: `start` is the UTF-16 offset of the prefix's first code unit. */
export interface PrefixHit {
  readonly start: number;
  readonly prefixId: number;
}

/** Without the WebAssembly kernel, texts shorter than this are read by one loop over `charCodeAt` (no copy). */
const PARALLEL_MIN = 2048;
/** Code units copied to the UTF-16 buffer at a time (the buffer: 32 KiB). */
const CHUNK = KERNEL_CHUNK;

/**
 * Hits the caller does not want (owned and updated by the caller, e.g. from its callback): those of
 * prefix ids from `from` on that start before `until`. The scan sets `until` to the end of the
 * base64 run of the gate hit it keeps (one per run is enough), so a run made of gates (`QUFBQUFB…`,
 * three gate hits per four characters) costs no call per hit.
 */
export interface QuietRange {
  readonly from: number;
  until: number;
  /**
   * A second band: hits of prefix ids in [mutedFrom, mutedTo) that start before `mutedUntil` are
   * not reported either (none when mutedFrom = mutedTo). The scan mutes the normalisation triggers
   * of a word it has read (scan.ts), so a word of dense removals (a line of `\_`, of soft hyphens)
   * costs no call per trigger.
   */
  readonly mutedFrom: number;
  readonly mutedTo: number;
  mutedUntil: number;
}

/** Is the hit of `id` at `start` one `quiet` leaves out? */
const silenced = (quiet: QuietRange | undefined, id: number, start: number): boolean =>
  quiet !== undefined && ((id >= quiet.from && start < quiet.until) || (id >= quiet.mutedFrom && id < quiet.mutedTo && start < quiet.mutedUntil));

/** An ASCII letter or digit other than `n`, `r`, `t` (see the constructor's `notAfterWord`). */
const gluesBefore = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122 && c !== 110 && c !== 114 && c !== 116);

/**
 * Could the code units before `at` end an escape sequence (`%XX`, `\xXX`, `\uXXXX`), whose last hex
 * digit touches the hit but which stands for another character (engine/boundaries.ts reads it)? A
 * loose test, only when the code unit before is a word character: a hit it lets through is decided
 * by startsToken. In a chunk buffer after the first (`base` > 0), the code units before the chunk
 * cannot be read back: true in its first 6 (in the first, as in the text: nothing before it).
 */
const mayFollowEscape = (buf: Uint16Array, at: number, base: number): boolean =>
  (at < 6 && base > 0) || buf[at - 3] === 37 || (buf[at - 4] === 92 && buf[at - 3] === 120) || (buf[at - 6] === 92 && buf[at - 5] === 117);
const mayFollowEscapeIn = (text: string, at: number): boolean =>
  text.charCodeAt(at - 3) === 37 || (text.charCodeAt(at - 4) === 92 && text.charCodeAt(at - 3) === 120) || (text.charCodeAt(at - 6) === 92 && text.charCodeAt(at - 5) === 117);

export class PrefixAutomaton {
  /** The prefixes, by id (= index). */
  readonly prefixes: readonly string[];
  private readonly symbolOf: Uint8Array | Uint16Array;
  private readonly symbolCount: number;
  /**
   * Transition table, one row of symbolCount + 1 entries per state: entry [row + symbol] is the next
   * state's row offset (state × (symbolCount + 1)), bitwise-NOT when that state has outputs; entry
   * [row + symbolCount] is where the state's outputs start in `outList` (for a state with outputs).
   */
  private readonly table: Int32Array;
  /** Number of DFA states. */
  private readonly states: number;
  /** Flattened output lists: prefix ids, each state's run terminated by -1. */
  private readonly outList: Int32Array;
  private readonly lengths: Int32Array;
  /** By prefix id: 1 = a hit glued to a word before it is not reported (see the constructor). */
  private readonly notAfterWord: Uint8Array;
  /**
   * Code units each parallel DFA run reads before its quarter: the longest prefix (every
   * occurrence ending in the quarter is then read whole).
   */
  private readonly overlap: number;
  /** The UTF-16 buffer of the parallel path, kept between calls (allocating it was ~15 % of a scan of a 20 KB note). */
  private scratch: Uint16Array | undefined;
  /** The DFA loop in WebAssembly (engine/dfa-kernel.ts), made at the first pass; null: unavailable. */
  private kernel: DfaKernel | null | undefined;

  /**
   * Builds the automaton. `prefixes`: non-empty strings (duplicates allowed; each id reported).
   * `notAfterWord` (optional, by prefix id, 1 = set): a hit of such a prefix is not reported when
   * the code unit before it is an ASCII letter or digit other than `n`, `r`, `t` (the caller
   * refuses those hits anyway: a token glued to a word, engine/boundaries.ts; `n`, `r`, `t` may end
   * a `\n` escape, which separates; nor a hex digit that may end an escape sequence, `%3A`), so a run of one repeated prefix character (a decoded run of
   * `A`s against a prefix of 20 `A`s) costs no call per code unit. (At the first code unit of a
   * chunk the code unit before is not read: such a hit is reported.)
   * `aliases` (optional): code unit → the code unit it is read as (it then hits wherever that one
   * would): a group of code units that play one part (the invisible characters normalisation
   * removes, engine/normalize.ts) costs one symbol of the alphabet, not one each. An alias must
   * occur in no prefix (TypeError); one whose target occurs in none is ignored.
   * `hidden` (optional): ids in [from, to) are not reported where they end inside an occurrence of
   * a prefix with an id below `from` that began before them (at a state on that prefix's trie path,
   * deeper than they are long): the scan's `\/` trigger inside the rule prefix `:\/\/` as written.
   * Throws TypeError on an empty prefix. Cost O(total prefix length × distinct code units), the
   * product being native row copies (`copyWithin`): ~6 000 states build in a few ms.
   */
  constructor(prefixes: readonly string[], notAfterWord?: Uint8Array, aliases?: ReadonlyMap<number, number>, hidden?: { readonly from: number; readonly to: number }) {
    this.prefixes = prefixes;
    this.notAfterWord = Uint8Array.from({ length: prefixes.length }, (_, id) => notAfterWord?.[id] ?? 0);
    const symbolMap = new Map<number, number>();
    for (const p of prefixes) {
      if (p.length === 0) throw new TypeError("PrefixAutomaton: empty prefix");
      for (let i = 0; i < p.length; i++) {
        const c = p.charCodeAt(i);
        if (!symbolMap.has(c)) symbolMap.set(c, symbolMap.size + 1);
      }
    }
    this.symbolCount = symbolMap.size + 1;
    this.symbolOf = this.symbolCount <= 256 ? new Uint8Array(65536) : new Uint16Array(65536);
    for (const [c, s] of symbolMap) this.symbolOf[c] = s;
    for (const [c, target] of aliases ?? []) {
      if (symbolMap.has(c)) throw new TypeError(`PrefixAutomaton: alias U+${c.toString(16).toUpperCase().padStart(4, "0")} occurs in a prefix`);
      this.symbolOf[c] = symbolMap.get(target) ?? 0;
    }
    this.lengths = Int32Array.from(prefixes, (p) => p.length);
    this.overlap = Math.max(...prefixes.map((p) => p.length));

    // Trie, numbered in insertion order. Its edges are written into the transition table itself
    // (raw child numbers, 0 = none: the root is nobody's child), sized for the most states there can
    // be; each state's children are also chained (first child, next sibling) for the BFS below.
    const S = this.symbolCount;
    // Rows are S + 1 wide: column S holds the state's start in `outList` (read at a hit, no division).
    const W = S + 1;
    let bound = 1;
    for (const p of prefixes) bound += p.length;
    const table = new Int32Array(bound * W);
    const firstChild = new Int32Array(bound);
    const nextSibling = new Int32Array(bound);
    const edgeSymbol = new Int32Array(bound);
    /** Per state: the smallest prefix id ending there, or -1; `sameNext[id]`: the next id of the same prefix string, or -1. */
    const ownFirst = new Int32Array(bound).fill(-1);
    const sameNext = new Int32Array(prefixes.length).fill(-1);
    const ownLast = new Int32Array(bound);
    const depthOf = new Int32Array(bound);
    /** 1 for a state on the trie path of a prefix with an id below `hidden.from`. */
    const onLowPath = new Uint8Array(bound);
    let n = 1;
    // Depth by depth (every prefix's first code unit, then every second one…), so states are numbered
    // by depth and the table's rows are in breadth-first order: the shallow states, where prose keeps
    // the automaton, sit together at its start instead of among the deep states of the prefixes
    // inserted before them (a catalog's ~2 000 base64 gates: 6 400 states, 2 MB of rows; measured
    // ~0.05 ms per MB of Markdown less for the gated automaton, ~30 % of what its size costs).
    const at = new Int32Array(prefixes.length); // each prefix's state so far
    // Ids by length, longest first (then ascending): those still longer than `depth` are the first `active`.
    const byLength = Array.from(prefixes.keys()).sort((a, b) => prefixes[b]!.length - prefixes[a]!.length || a - b);
    let active = byLength.length;
    for (let depth = 0; depth < this.overlap; depth++) {
      while (active > 0 && prefixes[byLength[active - 1]!]!.length <= depth) active--;
      for (let k = 0; k < active; k++) {
        const id = byLength[k]!;
        const p = prefixes[id]!;
        const s = at[id]!;
        const sym = this.symbolOf[p.charCodeAt(depth)]!;
        let next = table[s * W + sym]!;
        if (next === 0) {
          next = n++;
          table[s * W + sym] = next;
          edgeSymbol[next] = sym;
          depthOf[next] = depth + 1;
          nextSibling[next] = firstChild[s]!;
          firstChild[s] = next;
        }
        at[id] = next;
        if (hidden !== undefined && id < hidden.from) onLowPath[next] = 1;
        if (depth === p.length - 1) {
          // Prefixes ending at one state are all of this depth: ids come in ascending order.
          if (ownFirst[next] === -1) ownFirst[next] = id;
          else sameNext[ownLast[next]!] = id;
          ownLast[next] = id;
        }
      }
    }

    // BFS: failure links folded into a complete DFA, one row per state: a state's row is its
    // failure state's row (a native copy) with its own trie edges written over it. Entries are row
    // offsets (state × S), bitwise-NOT when that state has outputs (its own, or its failure
    // state's). The row of a failure state (shallower) is always complete when it is copied.
    const fail = new Int32Array(n);
    const hasOut = new Uint8Array(n);
    const queue = new Int32Array(n);
    let tail = 0;
    const enter = (s: number, c: number, f: number): void => {
      fail[c] = f;
      hasOut[c] = ownFirst[c] !== -1 || hasOut[f] === 1 ? 1 : 0;
      table[s * W + edgeSymbol[c]!] = hasOut[c] === 1 ? ~(c * W) : c * W;
      queue[tail++] = c;
    };
    for (let c = firstChild[0]!; c !== 0; c = nextSibling[c]!) enter(0, c, 0);
    for (let head = 0; head < tail; head++) {
      const s = queue[head]!;
      const f = fail[s]!;
      table.copyWithin(s * W, f * W, f * W + S);
      for (let c = firstChild[s]!; c !== 0; c = nextSibling[c]!) {
        const t = table[f * W + edgeSymbol[c]!]!;
        enter(s, c, (t < 0 ? ~t : t) / W);
      }
    }
    // Outputs of a state: its own prefix ids (ascending), then those of its failure chain.
    this.states = n;
    const flat: number[] = [];
    for (let s = 0; s < n; s++) {
      if (hasOut[s] === 0) continue;
      table[s * W + S] = flat.length;
      for (let t = s; t !== 0; t = fail[t]!) {
        for (let id = ownFirst[t]!; id !== -1; id = sameNext[id]!) {
          if (hidden !== undefined && onLowPath[s] === 1 && id >= hidden.from && id < hidden.to && depthOf[s]! > prefixes[id]!.length) continue;
          flat.push(id);
        }
      }
      flat.push(-1);
    }
    this.outList = Int32Array.from(flat);
    this.table = table.length === n * W ? table : table.slice(0, n * W);
  }

  /**
   * Does a prefix with an id from `fromId` on occur in `text[a, e)` followed by `text[s, t)` read
   * as one string, starting in the first piece and ending in the second (across the join)? One DFA
   * walk from the root over the (e − a) + (t − s) code units, no allocation; prefixes inside one
   * piece are not looked for. The decode layer asks it across the line breaks of wrapped base64
   * (engine/decode.ts, `SeamGates`), with pieces shorter than the longest prefix.
   */
  occursAcross(text: string, a: number, e: number, s: number, t: number, fromId: number): boolean {
    const { symbolOf, table, outList, lengths } = this;
    const S = this.symbolCount;
    let st = 0;
    for (let i = a; i < e; i++) {
      st = table[st + symbolOf[text.charCodeAt(i)]!]!;
      if (st < 0) st = ~st;
    }
    for (let i = s; i < t; i++) {
      st = table[st + symbolOf[text.charCodeAt(i)]!]!;
      if (st < 0) {
        st = ~st;
        // From the root at `a`, every output fits in what was read: longer than the part after the join = across it.
        for (let k = table[st + S]!; outList[k] !== -1; k++) if (outList[k]! >= fromId && lengths[outList[k]!]! > i + 1 - s) return true;
      }
    }
    return false;
  }

  /**
   * Does a prefix with an id from `fromId` on occur whole in `text[s, t)`? One DFA walk from the
   * root, stopping at the first; no allocation. The decode layer asks it of a base64 run found
   * without gate hits before decoding its cuts (engine/decode.ts, `SeamGates.within`).
   */
  occursIn(text: string, s: number, t: number, fromId: number): boolean {
    const { symbolOf, table, outList, lengths } = this;
    const S = this.symbolCount;
    let st = 0;
    for (let i = s; i < t; i++) {
      st = table[st + symbolOf[text.charCodeAt(i)]!]!;
      if (st < 0) {
        st = ~st;
        for (let k = table[st + S]!; outList[k] !== -1; k++) if (outList[k]! >= fromId && lengths[outList[k]!]! <= i + 1 - s) return true;
      }
    }
    return false;
  }

  /**
   * Calls `test(prefixId, start)` for the occurrences of the prefixes in `units[0, n)`, in the order
   * of {@link PrefixAutomaton.forEachHit}, until it returns true (then true; false when none does).
   * One DFA walk from the root, no allocation. The scan asks it of a word normalised around a
   * removal (engine/compile.ts, `wordCheck`).
   */
  someHit(units: Uint16Array, n: number, test: (prefixId: number, start: number) => boolean): boolean {
    const { symbolOf, table, outList, lengths } = this;
    const S = this.symbolCount;
    let st = 0;
    for (let i = 0; i < n; i++) {
      st = table[st + symbolOf[units[i]!]!]!;
      if (st < 0) {
        st = ~st;
        for (let k = table[st + S]!; outList[k] !== -1; k++) if (test(outList[k]!, i + 1 - lengths[outList[k]!]!)) return true;
      }
    }
    return false;
  }

  /** Number of DFA states (for diagnostics). */
  get stateCount(): number {
    return this.states;
  }

  /**
   * Calls `onHit(start, prefixId)` for every occurrence of every prefix in `text` (an occurrence of
   * a `notAfterWord` prefix glued to a word before it may be left out), in order of the
   * occurrence's END offset (ties: longer prefix first). O(text.length + hits). When `onHit`
   * returns `true` the search stops at once and `forEachHit` returns `true` (otherwise `false`).
   *
   * Texts of at least {@link PARALLEL_MIN} code units are copied, a chunk at a time, into a UTF-16
   * buffer and read by 4 interleaved runs of the DFA over the chunk's quarters (each quarter's run
   * starts {@link PrefixAutomaton.overlap} code units early from the root, so its state is exact
   * where its quarter begins); the hits of quarters 2-4 are buffered and delivered after the first
   * quarter's, so the order above holds. Measured ~1.4x the single loop over `charCodeAt`
   * (bench/README.md): the loop is bound by reading code units, not by the table. The DFA steps
   * between hits run in WebAssembly where it is available (engine/dfa-kernel.ts; then every text
   * goes through the buffer, short ones too).
   * `quiet`: hits not to report ({@link QuietRange}), read when a hit is found and again when it is
   * delivered; its `until` and `mutedUntil` may only grow during a call.
   */
  forEachHit(text: string, onHit: (start: number, prefixId: number) => boolean | void, quiet?: QuietRange): boolean {
    const n = text.length;
    if (this.kernel === undefined) this.kernel = dfaKernel(this.symbolOf, this.table);
    // The buffers are taken while in use, so a call from inside a callback takes the JavaScript loops and allocates its own.
    const kernel = this.kernel !== null && !this.kernel.busy ? this.kernel : undefined;
    if (kernel === undefined && n < PARALLEL_MIN) return this.serialHits(text, onHit, quiet);
    let buf: Uint16Array;
    let bytes: Buffer;
    if (kernel !== undefined) {
      kernel.busy = true;
      buf = kernel.units;
      bytes = kernel.bytes;
    } else {
      buf = this.scratch ?? new Uint16Array(CHUNK);
      this.scratch = undefined;
      bytes = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
    }
    const carry = { state: 0, dense: false };
    try {
      for (let from = 0; from < n; from += CHUNK) {
        const len = Math.min(CHUNK, n - from);
        bytes.write(from === 0 && len === n ? text : text.slice(from, from + len), 0, "utf16le");
        if (this.chunkHits(buf, len, from, carry, onHit, quiet, kernel)) return true;
      }
      return false;
    } finally {
      if (kernel !== undefined) kernel.busy = false;
      else this.scratch = buf;
    }
  }

  /** The single loop over `charCodeAt` (short texts). */
  private serialHits(text: string, onHit: (start: number, prefixId: number) => boolean | void, quiet: QuietRange | undefined): boolean {
    const { symbolOf, table, outList, lengths, notAfterWord } = this;
    const S = this.symbolCount;
    // `s` is a row offset (state × S); a negative table entry ~x marks a state with outputs.
    let s = 0;
    for (let i = 0, n = text.length; i < n; i++) {
      for (; i < n; i++) {
        s = table[s + symbolOf[text.charCodeAt(i)]!]!;
        if (s < 0) break;
      }
      if (i < n) {
        s = ~s;
        for (let k = table[s + S]!; outList[k] !== -1; k++) {
          const id = outList[k]!;
          const start = i + 1 - lengths[id]!;
          if (notAfterWord[id] === 1 && start > 0 && gluesBefore(text.charCodeAt(start - 1)) && !mayFollowEscapeIn(text, start)) continue;
          if (silenced(quiet, id, start)) continue;
          if (onHit(start, id) === true) return true;
        }
      }
    }
    return false;
  }

  /**
   * One chunk `buf[0, len)` (text offset `base`), continuing from `carry` (the DFA state at the end
   * of the previous chunk, and whether the text is hit-dense; updated). Four interleaved DFA runs
   * when the chunk is long enough and the text so far is not hit-dense. With `kernel`, `buf` is its
   * buffer and its functions step the runs between hits.
   */
  private chunkHits(
    buf: Uint16Array,
    len: number,
    base: number,
    carry: { state: number; dense: boolean },
    onHit: (start: number, prefixId: number) => boolean | void,
    quiet: QuietRange | undefined,
    kernel: DfaKernel | undefined,
  ): boolean {
    const { symbolOf, table, outList, lengths, notAfterWord } = this;
    const S = this.symbolCount;
    const pre = this.overlap;
    const q = len >> 2;
    let s0 = carry.state;
    // Hits of quarters 2-4, delivered after quarter 1's: (start, prefixId) pairs.
    const later: [number[], number[], number[]] = [[], [], []];
    let start3 = 0; // where the last DFA run's main range starts (the whole chunk when serial)
    let s3 = s0;
    if (q >= pre && !carry.dense) {
      let s1 = 0;
      let s2 = 0;
      s3 = 0;
      // Warm-up from the root over the `pre` code units before each quarter: no hits.
      for (let j = q - pre; j < q; j++) {
        s1 = table[s1 + symbolOf[buf[j]!]!]!;
        s2 = table[s2 + symbolOf[buf[j + q]!]!]!;
        s3 = table[s3 + symbolOf[buf[j + 2 * q]!]!]!;
        if (s1 < 0) s1 = ~s1;
        if (s2 < 0) s2 = ~s2;
        if (s3 < 0) s3 = ~s3;
      }
      const [l1, l2, l3] = later;
      for (let i = 0; i < q; i++) {
        // The four runs alone until one reaches a state with outputs (in a loop without calls).
        if (kernel !== undefined) {
          const st = kernel.states;
          st[0] = s0;
          st[1] = s1;
          st[2] = s2;
          st[3] = s3;
          i = kernel.run4(i, q);
          s0 = st[0]!;
          s1 = st[1]!;
          s2 = st[2]!;
          s3 = st[3]!;
        } else {
          for (; i < q; i++) {
            s0 = table[s0 + symbolOf[buf[i]!]!]!;
            s1 = table[s1 + symbolOf[buf[i + q]!]!]!;
            s2 = table[s2 + symbolOf[buf[i + 2 * q]!]!]!;
            s3 = table[s3 + symbolOf[buf[i + 3 * q]!]!]!;
            if ((s0 | s1 | s2 | s3) < 0) break;
          }
        }
        if (i < q) {
          if (s0 < 0) {
            s0 = ~s0;
            for (let k = table[s0 + S]!; outList[k] !== -1; k++) {
              const id = outList[k]!;
              const at = i + 1 - lengths[id]!; // in the chunk
              if (notAfterWord[id] === 1 && at > 0 && gluesBefore(buf[at - 1]!) && !mayFollowEscape(buf, at, base)) continue;
              if (silenced(quiet, id, base + at)) continue;
              if (onHit(base + at, id) === true) return true;
            }
          }
          if (s1 < 0) {
            s1 = ~s1;
            for (let k = table[s1 + S]!; outList[k] !== -1; k++) {
              const id = outList[k]!;
              const at = i + q + 1 - lengths[id]!;
              if (notAfterWord[id] === 1 && at > 0 && gluesBefore(buf[at - 1]!) && !mayFollowEscape(buf, at, base)) continue;
              if (silenced(quiet, id, base + at)) continue;
              l1.push(base + at);
              l1.push(id);
            }
          }
          if (s2 < 0) {
            s2 = ~s2;
            for (let k = table[s2 + S]!; outList[k] !== -1; k++) {
              const id = outList[k]!;
              const at = i + 2 * q + 1 - lengths[id]!;
              if (notAfterWord[id] === 1 && at > 0 && gluesBefore(buf[at - 1]!) && !mayFollowEscape(buf, at, base)) continue;
              if (silenced(quiet, id, base + at)) continue;
              l2.push(base + at);
              l2.push(id);
            }
          }
          if (s3 < 0) {
            s3 = ~s3;
            for (let k = table[s3 + S]!; outList[k] !== -1; k++) {
              const id = outList[k]!;
              const at = i + 3 * q + 1 - lengths[id]!;
              if (notAfterWord[id] === 1 && at > 0 && gluesBefore(buf[at - 1]!) && !mayFollowEscape(buf, at, base)) continue;
              if (silenced(quiet, id, base + at)) continue;
              l3.push(base + at);
              l3.push(id);
            }
          }
        }
      }
      start3 = 4 * q;
    }
    // The rest of the chunk (all of it when it is short or hit-dense): the last DFA run, serial;
    // its hits are buffered behind quarters 2-3's when there were quarters.
    const l3 = later[2];
    const direct = start3 === 0;
    for (let i = start3; i < len; i++) {
      if (kernel !== undefined) {
        kernel.states[3] = s3;
        i = kernel.run1(i, len);
        s3 = kernel.states[3]!;
      } else {
        for (; i < len; i++) {
          s3 = table[s3 + symbolOf[buf[i]!]!]!;
          if (s3 < 0) break;
        }
      }
      if (i < len) {
        s3 = ~s3;
        for (let k = table[s3 + S]!; outList[k] !== -1; k++) {
          const id = outList[k]!;
          const start = i + 1 - lengths[id]!; // in the chunk
          if (notAfterWord[id] === 1 && start > 0 && gluesBefore(buf[start - 1]!) && !mayFollowEscape(buf, start, base)) continue;
          if (silenced(quiet, id, base + start)) continue;
          if (!direct) {
            l3.push(base + start);
            l3.push(id);
          } else if (onHit(base + start, id) === true) return true;
        }
      }
    }
    carry.state = s3;
    // Hit-dense text (a prefix every few code units) gains nothing from 4 runs and pays for
    // buffering its hits: the rest of the text is read by one.
    carry.dense = carry.dense || later[0].length + later[1].length + later[2].length > len >> 3;
    for (const hits of later) {
      for (let k = 0; k < hits.length; k += 2) {
        if (silenced(quiet, hits[k + 1]!, hits[k]!)) continue;
        if (onHit(hits[k]!, hits[k + 1]!) === true) return true;
      }
    }
    return false;
  }

  /** All occurrences as an array (convenience for tests). */
  findAll(text: string): PrefixHit[] {
    const hits: PrefixHit[] = [];
    this.forEachHit(text, (start, prefixId) => {
      hits.push({ start, prefixId });
    });
    return hits;
  }
}
