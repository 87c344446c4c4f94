/**
 * Nesting depth of a JSON text, checked before `JSON.parse`: V8 parses deeply nested arrays far
 * more slowly than flat text of the same size (8 MB of `[[[[…]]]]` held the event loop ~17-25 s,
 * try15 F9), and no request of the protocol nests deeper than a few levels.
 */

/** Deepest nesting of arrays and objects a request body may have (the protocol's bodies need ≤ 6). */
export const MAX_JSON_DEPTH = 32;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * True when `text` opens more than `max` arrays/objects inside one another. Linear in `text.length`:
 * strings are skipped with `indexOf` (a quote preceded by an odd run of backslashes is escaped; each
 * run is counted once); it stops at the first level over `max`. Does not validate the JSON: an
 * unterminated string or unbalanced brackets are left for `JSON.parse` to refuse.
 */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      let end = i;
      for (;;) {
        end = text.indexOf('"', end + 1);
        if (end < 0) return false;
        let k = end - 1;
        while (text.charCodeAt(k) === BACKSLASH) k--;
        if ((end - 1 - k) % 2 === 0) break;
      }
      i = end;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return false;
}
