/**
 * The prefix automaton's inner loop (engine/prefix-automaton.ts) as a WebAssembly function: the DFA
 * steps from one code unit to the next until a state with outputs, nothing else. In JavaScript the
 * same loop costs ~18 instructions per code unit whatever is done (V8 checks each typed array's map
 * and reloads its length and data pointer at every step, even in a loop without calls); here ~7
 * (callgrind: the automaton's pass over the bench's Markdown 352 → 147 M instructions per 3
 * passes). The hits themselves are still handled in JavaScript, one call here per hit.
 *
 * Memory (one per automaton, its own table in it): the four DFA states, the symbol of every code
 * unit (16 bits), a chunk of the text as UTF-16 code units ({@link KERNEL_CHUNK} at most, written
 * by the caller through `bytes`), then the transition table (entries are row offsets, bitwise-NOT
 * for a state with outputs, as in the automaton). The module, in the text format:
 *
 *   (func $run4 (param $i i32) (param $q i32) (result i32)   ;; 4 runs, over [i, q) of each quarter
 *     (local $s0..$s3 i32) (local $p i32) (local $qb i32) (local $end i32)
 *     s0..s3 := load STATE + 0..12;  p := BUF + 2i;  qb := 2q;  end := BUF + 2q
 *     loop: if p >= end: leave
 *           sK := table[sK + sym[unit at p + K·qb]]  for K = 0..3
 *           if (s0 | s1 | s2 | s3) < 0: leave          ;; a state with outputs: the caller's turn
 *           p += 2
 *     store s0..s3;  return (p − BUF) / 2                 ;; the index of the step that hit, or q
 *   (func $run1 (param $i i32) (param $end i32) (result i32)  ;; one run (state 3), over [i, end)
 *
 * Unavailable (`node --jitless` has no WebAssembly): {@link dfaKernel} returns null and the
 * automaton runs its JavaScript loops.
 */

/** Code units of text the kernel's buffer holds (the automaton's chunk). */
export const KERNEL_CHUNK = 1 << 14;

const STATE = 0;
const SYMBOLS = 64;
const UNITS = SYMBOLS + 2 * 65536;
const TABLE = UNITS + 2 * KERNEL_CHUNK;

/** The DFA loop of one automaton, over its own memory. */
export interface DfaKernel {
  /** The chunk buffer (text code units from index 0), and the same bytes for `Buffer.write(…, "utf16le")`. */
  readonly units: Uint16Array;
  readonly bytes: Buffer;
  /** The DFA states the runs start from and end at (run1 uses index 3). */
  readonly states: Int32Array;
  /** Four runs over `units[K·q + i, K·q + q)`, K = 0..3, in step: the index of the step at which one reached a state with outputs, or q. */
  run4(i: number, q: number): number;
  /** One run (state 3) over `units[i, end)`: the index of the code unit at which it reached a state with outputs, or end. */
  run1(i: number, end: number): number;
  /** Set while a pass uses the buffer (a pass started from inside a callback takes the JavaScript loops). */
  busy: boolean;
}

// A minimal assembler: just what the two functions need.
const uleb = (n: number): number[] => {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
};
const sleb = (n: number): number[] => {
  const out: number[] = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (b & 0x40) === 0) || (n === -1 && (b & 0x40) !== 0)) return [...out, b];
    out.push(b | 0x80);
  }
};
const name = (s: string): number[] => [...uleb(s.length), ...Buffer.from(s, "latin1")];
const vec = (items: number[][]): number[] => [...uleb(items.length), ...items.flat()];
const section = (id: number, bytes: number[]): number[] => [id, ...uleb(bytes.length), ...bytes];
const get = (l: number): number[] => [0x20, l];
const set = (l: number): number[] => [0x21, l];
const i32 = (n: number): number[] => [0x41, ...sleb(n)];
const [ADD, SUB, MUL, OR, SHL, SHR_U, GE_U, LT_S] = [[0x6a], [0x6b], [0x6c], [0x72], [0x74], [0x76], [0x4f], [0x48]];
const load = (offset: number): number[] => [0x28, 2, ...uleb(offset)];
const load16 = (offset: number): number[] => [0x2f, 1, ...uleb(offset)];
const store = (offset: number): number[] => [0x36, 2, ...uleb(offset)];
const [BLOCK, LOOP, END] = [[0x02, 0x40], [0x03, 0x40], [0x0b]];
const brIf = (depth: number): number[] => [0x0d, depth];
const br = (depth: number): number[] => [0x0c, depth];

/** `s := table[s + symbols[unit at address]]` (the address on the stack from `address`). */
const step = (s: number, address: number[]): number[] => [...get(s), ...address, ...load16(0), ...i32(1), ...SHL, ...load16(SYMBOLS), ...ADD, ...i32(2), ...SHL, ...load(TABLE), ...set(s)];

/** Locals from 2: the states, the pointer, and what the loop compares it with. */
function run4Body(): number[] {
  const [i, q, s0, s1, s2, s3, p, qb, end] = [0, 1, 2, 3, 4, 5, 6, 7, 8];
  const states = [s0, s1, s2, s3];
  return [
    ...states.flatMap((s, k) => [...i32(0), ...load(STATE + 4 * k), ...set(s)]),
    ...get(i), ...i32(1), ...SHL, ...i32(UNITS), ...ADD, ...set(p),
    ...get(q), ...i32(1), ...SHL, ...set(qb),
    ...get(qb), ...i32(UNITS), ...ADD, ...set(end),
    ...BLOCK, ...LOOP,
    ...get(p), ...get(end), ...GE_U, ...brIf(1),
    ...step(s0, get(p)),
    ...step(s1, [...get(p), ...get(qb), ...ADD]),
    ...step(s2, [...get(p), ...get(qb), ...i32(1), ...SHL, ...ADD]),
    ...step(s3, [...get(p), ...get(qb), ...i32(3), ...MUL, ...ADD]),
    ...get(s0), ...get(s1), ...OR, ...get(s2), ...OR, ...get(s3), ...OR, ...i32(0), ...LT_S, ...brIf(1),
    ...get(p), ...i32(2), ...ADD, ...set(p), ...br(0),
    ...END, ...END,
    ...states.flatMap((s, k) => [...i32(0), ...get(s), ...store(STATE + 4 * k)]),
    ...get(p), ...i32(UNITS), ...SUB, ...i32(1), ...SHR_U, ...END,
  ]; // prettier-ignore
}

function run1Body(): number[] {
  const [i, last, s, p, end] = [0, 1, 2, 3, 4];
  return [
    ...i32(0), ...load(STATE + 12), ...set(s),
    ...get(i), ...i32(1), ...SHL, ...i32(UNITS), ...ADD, ...set(p),
    ...get(last), ...i32(1), ...SHL, ...i32(UNITS), ...ADD, ...set(end),
    ...BLOCK, ...LOOP,
    ...get(p), ...get(end), ...GE_U, ...brIf(1),
    ...step(s, get(p)),
    ...get(s), ...i32(0), ...LT_S, ...brIf(1),
    ...get(p), ...i32(2), ...ADD, ...set(p), ...br(0),
    ...END, ...END,
    ...i32(0), ...get(s), ...store(STATE + 12),
    ...get(p), ...i32(UNITS), ...SUB, ...i32(1), ...SHR_U, ...END,
  ]; // prettier-ignore
}

const body = (locals: number, code: number[]): number[] => {
  const b = [...vec([[...uleb(locals), 0x7f]]), ...code];
  return [...uleb(b.length), ...b];
};

/** The module's bytes: imports memory `m.mem`, exports `run4` and `run1`, both `(i32, i32) → i32`. */
export function kernelModuleBytes(): Uint8Array {
  return Uint8Array.from([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, vec([[0x60, 2, 0x7f, 0x7f, 1, 0x7f]])),
    ...section(2, vec([[...name("m"), ...name("mem"), 0x02, 0x00, 1]])),
    ...section(3, vec([[0], [0]])),
    ...section(7, vec([[...name("run4"), 0x00, 0], [...name("run1"), 0x00, 1]])),
    ...section(10, vec([body(7, run4Body()), body(3, run1Body())])),
  ]);
}

/** The part of the WebAssembly API used here (the package's TypeScript libraries declare none of it). */
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { readonly exports: Record<string, unknown> };
  Memory: new (descriptor: { initial: number }) => { readonly buffer: ArrayBuffer };
}

let compiled: object | null | undefined;

/**
 * The kernel of an automaton with these tables (copied into its memory: ~4 bytes per table entry),
 * or null when WebAssembly is unavailable.
 */
export function dfaKernel(symbolOf: Uint8Array | Uint16Array, table: Int32Array): DfaKernel | null {
  const api = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
  if (compiled === undefined) {
    try {
      compiled = api === undefined ? null : new api.Module(kernelModuleBytes());
    } catch {
      compiled = null;
    }
  }
  if (compiled === null || api === undefined) return null;
  const mem = new api.Memory({ initial: Math.ceil((TABLE + 4 * table.length) / 65536) });
  const { run4, run1 } = new api.Instance(compiled, { m: { mem } }).exports as { run4: (i: number, q: number) => number; run1: (i: number, end: number) => number };
  new Uint16Array(mem.buffer, SYMBOLS, 65536).set(symbolOf);
  new Int32Array(mem.buffer, TABLE, table.length).set(table);
  return {
    units: new Uint16Array(mem.buffer, UNITS, KERNEL_CHUNK),
    bytes: Buffer.from(mem.buffer, UNITS, 2 * KERNEL_CHUNK),
    states: new Int32Array(mem.buffer, STATE, 4),
    run4,
    run1,
    busy: false,
  };
}
