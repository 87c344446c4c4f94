/**
 * Aho-Corasick automaton over UTF-16 code units: finds every occurrence of a set of literal
 * prefixes in one left-to-right pass, O(text length + occurrences), whatever the input.
 *
 * Representation: a complete DFA (goto and failure functions folded together) over the code units
 * that occur in some prefix. Code units are first mapped to a small "symbol" number through a dense
 * 64 Ki `Uint8Array`/`Uint16Array` (`symbolOf`, 0 = "occurs in no prefix", which sends every state
 * back to the root), so the transition table is `states × symbols` `Int32Array` entries; the inner
 * loop is two typed-array loads per code unit. Measured faster than one combined alternation regex
 * on Markdown (see bench/README.md).
 */

/** One occurrence: `start` is the UTF-16 offset of the prefix's first code unit. */
export interface PrefixHit {
  readonly start: number;
  readonly prefixId: number;
}

export class PrefixAutomaton {
  /** The prefixes, by id (= index). */
  readonly prefixes: readonly string[];
  private readonly symbolOf: Uint8Array | Uint16Array;
  private readonly symbolCount: number;
  /** Transition table: entry [row + symbol] is the next state's row offset (state × symbolCount), bitwise-NOT when that state has outputs. */
  private readonly table: Int32Array;
  /** For each state: index into `outList` where its outputs start, or -1 when it has none. */
  private readonly outStart: Int32Array;
  /** Flattened output lists: prefix ids, each state's run terminated by -1. */
  private readonly outList: Int32Array;
  private readonly lengths: Int32Array;

  /**
   * Builds the automaton. `prefixes`: non-empty strings (duplicates allowed; each id reported).
   * Throws TypeError on an empty prefix. Cost O(total prefix length × distinct code units).
   */
  constructor(prefixes: readonly string[]) {
    this.prefixes = prefixes;
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
    this.lengths = Int32Array.from(prefixes, (p) => p.length);

    // Trie.
    const S = this.symbolCount;
    const gotoRows: Int32Array[] = [new Int32Array(S).fill(-1)];
    const outs: number[][] = [[]];
    prefixes.forEach((p, id) => {
      let s = 0;
      for (let i = 0; i < p.length; i++) {
        const sym = this.symbolOf[p.charCodeAt(i)]!;
        let next = gotoRows[s]![sym]!;
        if (next === -1) {
          next = gotoRows.length;
          gotoRows.push(new Int32Array(S).fill(-1));
          outs.push([]);
          gotoRows[s]![sym] = next;
        }
        s = next;
      }
      outs[s]!.push(id);
    });

    // BFS: failure links folded into a complete DFA; outputs inherited along failure links.
    const n = gotoRows.length;
    const delta = new Int32Array(n * S);
    const fail = new Int32Array(n);
    const queue: number[] = [];
    for (let sym = 0; sym < S; sym++) {
      const t = gotoRows[0]![sym]!;
      if (t === -1 || sym === 0) delta[sym] = 0;
      else {
        delta[sym] = t;
        fail[t] = 0;
        queue.push(t);
      }
    }
    for (let qi = 0; qi < queue.length; qi++) {
      const s = queue[qi]!;
      const f = fail[s]!;
      for (const id of outs[f]!) outs[s]!.push(id);
      for (let sym = 0; sym < S; sym++) {
        const t = sym === 0 ? -1 : gotoRows[s]![sym]!;
        if (t === -1) delta[s * S + sym] = delta[f * S + sym]!;
        else {
          delta[s * S + sym] = t;
          fail[t] = delta[f * S + sym]!;
          queue.push(t);
        }
      }
    }
    // Row-offset table with output states marked by bitwise NOT (see forEachHit).
    this.table = new Int32Array(n * S);
    for (let i = 0; i < n * S; i++) {
      const t = delta[i]!;
      this.table[i] = outs[t]!.length > 0 ? ~(t * S) : t * S;
    }
    this.outStart = new Int32Array(n).fill(-1);
    const flat: number[] = [];
    for (let s = 0; s < n; s++) {
      if (outs[s]!.length === 0) continue;
      this.outStart[s] = flat.length;
      flat.push(...outs[s]!, -1);
    }
    this.outList = Int32Array.from(flat);
  }

  /** Number of DFA states (for diagnostics). */
  get stateCount(): number {
    return this.outStart.length;
  }

  /**
   * Calls `onHit(start, prefixId)` for every occurrence of every prefix in `text`, in order of the
   * occurrence's END offset (ties: longer prefix first). O(text.length + hits). When `onHit`
   * returns `true` the search stops at once and `forEachHit` returns `true` (otherwise `false`).
   */
  forEachHit(text: string, onHit: (start: number, prefixId: number) => boolean | void): boolean {
    const { symbolOf, table, outStart, outList, lengths } = this;
    const S = this.symbolCount;
    // `s` is a row offset (state × S); a negative table entry ~x marks a state with outputs.
    let s = 0;
    for (let i = 0, n = text.length; i < n; i++) {
      s = table[s + symbolOf[text.charCodeAt(i)]!]!;
      if (s < 0) {
        s = ~s;
        for (let k = outStart[s / S]!; outList[k] !== -1; k++) {
          const id = outList[k]!;
          if (onHit(i + 1 - lengths[id]!, id) === true) return true;
        }
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
