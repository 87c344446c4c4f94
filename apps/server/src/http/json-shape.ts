/**
 * The shape of a JSON request body, checked before `JSON.parse` and the route's schema: how deep
 * arrays and objects nest, and how many items (array elements, object members) one holds.
 * - Depth: V8 parses deeply nested arrays far more slowly than flat text of the same size (8 MB of
 *   `[[[[…]]]]` held the event loop ~17-25 s, try15 F9); no request of the protocol nests deeper than
 *   a few levels.
 * - Items: a schema checks every item of an array (or every unknown key of an object) before it
 *   counts them: 100 000 invalid batch operations in 1.5 MB held the event loop 45 s, 200 000 unknown
 *   keys 3-6 s (try16 F13, F14). No request of the protocol needs more than 1 000 items in one place.
 */

/** Deepest nesting of arrays and objects a request body may have (the protocol's bodies need ≤ 6). */
export const MAX_JSON_DEPTH = 32;

/**
 * Most items one array or object of a request body may hold (the protocol's largest are a block
 * report's 1 000 findings and a batch's operations, 100 by default: TEAMMEM_MAX_OPERATIONS_PER_BATCH
 * is capped at this).
 */
export const MAX_JSON_ITEMS = 10_000;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;

/** What is wrong with a body's shape: nested deeper than allowed, or a container holding too many items. */
export type JsonShapeFault = "too_deep" | "too_many_items";

/**
 * The first fault of `text`'s shape, or undefined: more than `maxDepth` arrays/objects opened inside
 * one another, or one of them holding more than `maxItems` items (counted by its commas). Linear in
 * `text.length`: strings are skipped with `indexOf` (a quote preceded by an odd run of backslashes is
 * escaped; each run is counted once); it stops at the first fault. Does not validate the JSON: an
 * unterminated string or unbalanced brackets are left for `JSON.parse` to refuse.
 */
export function jsonShapeFault(text: string, maxDepth: number, maxItems: number): JsonShapeFault | undefined {
  return jsonShapeFaultAt(text, maxDepth, maxItems)?.fault;
}

/**
 * {@link jsonShapeFault} with where it is: `depth` of the container at fault (1: the body itself)
 * and whether it is an array, so a route can name its own limit (a batch's top-level
 * `operations` array, depth 2, is `batch_too_large`, try17 L1).
 */
export function jsonShapeFaultAt(text: string, maxDepth: number, maxItems: number): { fault: JsonShapeFault; depth: number; array: boolean } | undefined {
  /** Commas seen so far in the container open at each depth (index 0: outside any). */
  const commas = new Int32Array(maxDepth + 1);
  /** Whether the container open at each depth is an array. */
  const arrays = new Uint8Array(maxDepth + 1);
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      let end = i;
      for (;;) {
        end = text.indexOf('"', end + 1);
        if (end < 0) return undefined;
        let k = end - 1;
        while (text.charCodeAt(k) === BACKSLASH) k--;
        if ((end - 1 - k) % 2 === 0) break;
      }
      i = end;
    } else if (c === COMMA) {
      if (depth > 0 && ++commas[depth]! >= maxItems) return { fault: "too_many_items", depth, array: arrays[depth] === 1 };
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > maxDepth) return { fault: "too_deep", depth, array: c === 0x5b };
      commas[depth] = 0;
      arrays[depth] = c === 0x5b ? 1 : 0;
    } else if (c === 0x5d || c === 0x7d) {
      if (depth > 0) depth--;
    }
  }
  return undefined;
}
