/**
 * Case variants of a literal prefix, for custom rules with the `i` flag (config.ts; try21 F2).
 *
 * The engine finds prefixes by exact comparison (engine/prefix-automaton.ts) and tries a rule's
 * pattern only where one occurs, so a rule whose pattern ignores case would still be found only
 * where its prefix is written as listed. Listing every string that the pattern's own `i` matching
 * accepts for the prefix keeps the single linear pass: `acme_` becomes `acme_`, `Acme_`, … `ACME_`
 * (16). Their number is the product, over the prefix's characters, of each one's variants, so it
 * is bounded ({@link MAX_CASE_VARIANTS}).
 */

/** Most case variants a rule's prefixes may stand for together; above, the config is refused. */
export const MAX_CASE_VARIANTS = 256;

/** By BMP character: the other characters whose lower- or upper-case mapping it is (U+212A KELVIN SIGN for `k`, U+017F LONG S for `S`). */
let inverse: Map<string, string[]> | undefined;

function inverseCaseMap(): Map<string, string[]> {
  if (inverse) return inverse;
  const map = new Map<string, string[]>();
  const add = (mapped: string, ch: string): void => {
    // A mapping to several characters (`ß` → `SS`) is no single-character match.
    if (mapped === ch || mapped.length !== 1) return;
    const list = map.get(mapped);
    if (list === undefined) map.set(mapped, [ch]);
    else if (!list.includes(ch)) list.push(ch);
  };
  for (let cp = 0; cp <= 0xffff; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    const ch = String.fromCharCode(cp);
    add(ch.toLowerCase(), ch);
    add(ch.toUpperCase(), ch);
  }
  return (inverse = map);
}

/** `ch` as a regex atom under any flags (`u` forbids escaping what is not syntax). */
const atom = (ch: string): string => (/[\\^$.*+?()[\]{}|/]/.test(ch) ? `\\${ch}` : ch);

/**
 * The characters a regex with `flags` matches for the literal character `ch` (a code point): `ch`
 * itself, and with `i` those of its case mappings, and of the characters mapped to them, that the
 * regex's own case-insensitive comparison accepts (so `u` adds U+212A KELVIN SIGN to `k` and `K`,
 * and without `u` nothing non-ASCII joins an ASCII letter, as ECMAScript's Canonicalize says).
 */
function charVariants(ch: string, flags: string): string[] {
  if (!flags.includes("i")) return [ch];
  const one = new RegExp(`^${atom(ch)}$`, flags.replace(/[^iu]/g, ""));
  const lower = ch.toLowerCase();
  const upper = ch.toUpperCase();
  const map = inverseCaseMap();
  const candidates = new Set([ch, lower, upper, ...(map.get(ch) ?? []), ...(map.get(lower) ?? []), ...(map.get(upper) ?? [])]);
  return [...candidates].filter((c) => [...c].length === 1 && one.test(c));
}

/**
 * Every string a regex with `flags` matches for the literal `prefix` (just `prefix` without `i`),
 * unless there are more than `limit`: then `undefined`, and {@link caseVariantCount} says how many.
 */
export function caseVariants(prefix: string, flags: string, limit: number = MAX_CASE_VARIANTS): string[] | undefined {
  let out = [""];
  for (const ch of prefix) {
    const vs = charVariants(ch, flags);
    if (out.length * vs.length > limit) return undefined;
    out = out.flatMap((head) => vs.map((v) => head + v));
  }
  return out;
}

/** How many strings {@link caseVariants} stands for (computed without listing them). */
export function caseVariantCount(prefix: string, flags: string): number {
  let n = 1;
  for (const ch of prefix) n *= charVariants(ch, flags).length;
  return n;
}
