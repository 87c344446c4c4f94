/**
 * Token boundaries derived from a rule's alphabet, so that no rule writes its own and every rule
 * treats its neighbours alike (issue 10: sentence punctuation, diff markers, Markdown emphasis and
 * JSON escapes around a token).
 *
 * Alphabets: every ASCII character a part of the pattern can match, lookarounds left out. The start
 * of a token derives from its `lead` group (the characters before a literal prefix that sits inside
 * the token, captured in a leading lookbehind) or else from the pattern's leading run (its top-level
 * parts up to the first one that can match whitespace or uses a negated class); the end derives from
 * the `secret` group when there is one, else from the trailing run. A side whose run is empty (a PEM
 * block's body, a URL's `[^…]` password) gets no boundary: the pattern's structure delimits it.
 *
 * Around a token, characters fall in three classes:
 * - WORD: ASCII letters and digits, always. A letter or digit touching a token makes it part of a
 *   longer word or identifier (`xghp_…`, `…Zmore`), whatever the token's own alphabet.
 * - PUNCT: the other characters of the alphabet (`-` for `glpat-…`, `+/=` for base64 bodies), and
 *   `.` before any token (a dot between words makes a dotted name: `video_box.ico-….png`, a domain;
 *   after a token it may end a sentence or start a file extension, `ghp_….md`). One touching the
 *   token glues only when the run of them (up to {@link MAX_PUNCT_RUN}) continues into a word
 *   character: `-glpat-…` at the start of a diff line, `_ghp_…_` in Markdown and `hvs.….` at the
 *   end of a sentence are tokens, `my-glpat-…` and `hvs.….more` are not. `=` never glues before a
 *   token: in a token it is only base64 padding at the end, and before one it assigns
 *   (`KEY=token`). `:` never glues after a token: in a token it only separates fixed fields
 *   (Telegram's `<bot id>:<secret>`, Sidekiq's `user:password`), and after one it starts the next
 *   field (`<token>:x`, `host:port`, a `KEY:value` list). When a literal prefix of the rule could be base64 text itself (`EAAA`, `AKIA`,
 *   `eyJ`: only `[A-Za-z0-9+/]`), `+` is punctuation too, so base64 data that happens to contain the
 *   prefix (`…MIIB+EAAA…`, a certificate) is not a token while `+EAAA…` at the start of a diff line
 *   still is (`/` is not: it separates path segments, and a token in a path, `team/AKIA…/notes.md`,
 *   is a leak).
 * - SEPARATOR: everything else (space, quotes, brackets, `*`, `:`, `,`, `&`, `\`, non-ASCII…). A
 *   backslash escape `\n`, `\r` or `\t` (as inside a JSON string) is a separator too, although its
 *   letter is a word character.
 * A token that opens with a character other than a letter or digit (`://…`, `:_authToken=`,
 * `-----BEGIN`) delimits itself: nothing before it glues. A `lead` lookbehind may start with an
 * optional literal `glue` group, `(?<=(?<glue>bot)?(?<lead>\d{6,12}))`: text documented to touch
 * the token (Telegram's `https://api.telegram.org/bot<token>/`), not part of it; when it is there the
 * start boundary is checked before it instead (`/bot…` is a token, `robot…` is not).
 */

/** Longest run of the alphabet's punctuation that is looked through to decide whether it glues. */
export const MAX_PUNCT_RUN = 3;

const isWordCode = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);

const SEPARATOR = 0;
const WORD = 1;
const PUNCT = 2;

export interface TokenBoundary {
  /**
   * Class (0 separator, 1 word, 2 punctuation of the alphabet) of each ASCII code unit before a
   * token; undefined when the pattern opens with structure (no start boundary is derived).
   */
  readonly before: Uint8Array | undefined;
  /** Same, after the token (`=` is punctuation here); undefined when the value ends in structure. */
  readonly after: Uint8Array | undefined;
}

/** What a part of a pattern can match: its ASCII alphabet, and whether it is structure rather than token text. */
export interface Part {
  /** 128 entries, 1 = the part can match this ASCII character. */
  readonly alphabet: Uint8Array;
  /** The part can match whitespace, or any character of a negated class (`[^…]`, `.`, `\S`…). */
  structural: boolean;
}

interface Parsed {
  /** Top-level items in order (a leading `(?<=(?<lead>…))`'s content is the first), lookarounds left out. */
  readonly items: Part[];
  /** The `secret` group, when the pattern has one. */
  secret: Part | undefined;
  /** The `lead` group (a leading lookbehind's content), when the pattern has one. */
  lead: Part | undefined;
}

const WHITESPACE = [9, 10, 11, 12, 13, 32];

/**
 * The optional `glue` group a leading lookbehind may hold before its `lead` group: literal text
 * (no group, class or quantifier inside) that may touch the token's start without gluing it to a
 * longer word, e.g. `(?<=(?<glue>bot)?(?<lead>\d{6,12}))` for Telegram's `/bot<token>/` URLs.
 */
const LEAD_GLUE = /^\(\?<glue>[A-Za-z0-9_-]{1,32}\)\?(?=\(\?<lead>)/;

/** A pattern that opens with a `lead` lookbehind (optionally after a `glue` group: {@link LEAD_GLUE}). */
const LEAD_LOOKBEHIND = /^\(\?<=(?:\(\?<glue>[A-Za-z0-9_-]{1,32}\)\?)?\(\?<lead>/;

/** What a top-level parse of one branch returns (its items went to the caller's list). */
const EMPTY_PART: Readonly<Part> = { alphabet: new Uint8Array(128), structural: false };

/**
 * Alphabets of the atoms already evaluated (key: flags, negation, atom source), shared by the
 * rules of one catalog compile (engine/compile.ts): rules repeat the same classes. Entries are
 * never mutated. `byRegex`: evaluate every atom with the regex engine ({@link regexAlphabet}), not
 * the plain reading of simple atoms ({@link simpleAlphabet}); for the test that they agree.
 */
export interface AtomCache {
  readonly parts: Map<string, Readonly<Part>>;
  readonly byRegex: boolean;
}

/** A new, empty {@link AtomCache} (one per compile; the caller owns and drops it). */
export const atomCache = (byRegex = false): AtomCache => ({ parts: new Map(), byRegex });

/**
 * The ASCII characters the atom `atom` (one character, escape or class of a pattern with flags
 * `flags`) matches, by the regex engine: 128 tests of `^(?:atom)$`. An atom that does not compile
 * alone (a backreference) matches nothing. Each call compiles a RegExp (~0.3 ms cold, with the
 * engine's tier-up), which is why {@link simpleAlphabet} reads the common atoms itself.
 */
export function regexAlphabet(atom: string, flags: string): Uint8Array {
  const alphabet = new Uint8Array(128);
  let re: RegExp | undefined;
  try {
    re = new RegExp(`^(?:${atom})$`, flags);
  } catch {
    re = undefined;
  }
  if (re) for (let c = 0; c < 128; c++) if (re.test(String.fromCharCode(c))) alphabet[c] = 1;
  return alphabet;
}

/** ASCII members of the escapes `\d`, `\w`, `\s` (and `\D`, `\W`, `\S` as their complements in ASCII). */
const CLASS_ESCAPES: Readonly<Record<string, (c: number) => boolean>> = {
  d: (c) => c >= 48 && c <= 57,
  w: (c) => isWordCode(c) || c === 95,
  s: (c) => WHITESPACE.includes(c),
};

/** The characters `u`-mode patterns may escape as themselves (ECMA-262 SyntaxCharacter, and `/`). */
const SYNTAX_CHARACTERS = "^$\\.*+?()[]{}|/";

/** Control escapes that stand for one character. */
const CONTROL_ESCAPES: Readonly<Record<string, number>> = { n: 10, r: 13, t: 9, f: 12, v: 11, "0": 0 };

/**
 * The ASCII alphabet of a simple atom read without the regex engine: a literal ASCII character, an
 * escape of punctuation, `\d \w \s \D \W \S \n \r \t \f \v`, or a class `[…]` / `[^…]` made of those
 * and ranges of literal characters. Undefined for anything else, and under the `i` or `v` flag
 * (case folding, set notation): the caller asks {@link regexAlphabet}. The catalog's atoms are all
 * simple; a test checks that both readings agree on every one of them.
 */
export function simpleAlphabet(atom: string, flags: string): Uint8Array | undefined {
  if (flags.includes("i") || flags.includes("v")) return undefined;
  const alphabet = new Uint8Array(128);
  /** One class member or atom at `i`: [its single code (or -1 for a set), next index], or undefined. */
  const unicode = flags.includes("u");
  const member = (i: number, set: Uint8Array, inClass: boolean): [number, number] | undefined => {
    const c = atom.charCodeAt(i);
    if (Number.isNaN(c) || c >= 128) return undefined;
    if (c !== 92 /* \ */) return [c, i + 1];
    const d = atom[i + 1] ?? "";
    const cls = CLASS_ESCAPES[d.toLowerCase()];
    if (cls !== undefined) {
      const negate = d !== d.toLowerCase();
      for (let k = 0; k < 128; k++) if (cls(k) !== negate) set[k] = 1;
      return [-1, i + 2];
    }
    if (d in CONTROL_ESCAPES && !(d === "0" && /[0-9]/.test(atom[i + 2] ?? ""))) return [CONTROL_ESCAPES[d]!, i + 2];
    // An identity escape of ASCII punctuation (`\.`, `\-`, `\/`, `\]`…; letters and digits are other
    // escapes); under `u` only of a syntax character, or `-` in a class.
    const e = d.charCodeAt(0);
    const allowed = unicode ? SYNTAX_CHARACTERS.includes(d) || (inClass && d === "-") : e >= 33 && e < 127 && !isWordCode(e) && d !== "_";
    return allowed && d !== "" ? [e, i + 2] : undefined;
  };
  if (atom[0] !== "[") {
    const m = member(0, alphabet, false);
    if (m === undefined || m[1] !== atom.length) return undefined;
    if (m[0] >= 0) alphabet[m[0]] = 1;
    return alphabet;
  }
  const negated = atom[1] === "^";
  let i = negated ? 2 : 1;
  const set = new Uint8Array(128);
  const end = atom.length - 1;
  if (atom[end] !== "]" || i === end) return undefined; // `[]` / `[^]`: left to the engine
  while (i < end) {
    const m = member(i, set, true);
    if (m === undefined) return undefined;
    const [lo, next] = m;
    if (atom[next] === "-" && next + 1 < end) {
      // A range `a-z` of two single characters (a range from or to a class escape: the engine's).
      const h = member(next + 1, set, true);
      if (lo < 0 || h === undefined || h[0] < 0 || h[0] < lo) return undefined;
      for (let k = lo; k <= h[0]; k++) set[k] = 1;
      i = h[1];
    } else {
      if (lo >= 0) set[lo] = 1;
      i = next;
    }
  }
  for (let k = 0; k < 128; k++) alphabet[k] = set[k] === 1 ? (negated ? 0 : 1) : negated ? 1 : 0;
  return alphabet;
}

/**
 * Splits `pattern` into top-level parts with their alphabets. Lookarounds match no token text and
 * are left out, except a leading lookbehind holding a group named `lead`. Classes and escapes are
 * read as the regex engine reads them with the pattern's flags ({@link simpleAlphabet}, else the
 * engine itself: {@link regexAlphabet}). A top-level alternation makes one item.
 */
export function parseParts(pattern: RegExp, cache?: AtomCache): Parsed {
  const source = pattern.source;
  const flags = pattern.flags.replace(/[gyd]/g, "");
  const parsed: Parsed = { items: [], secret: undefined, lead: undefined };
  let i = 0;
  const newPart = (): Part => ({ alphabet: new Uint8Array(128), structural: false });
  const merge = (into: Part, from: Part): void => {
    for (let c = 0; c < 128; c++) if (from.alphabet[c]) into.alphabet[c] = 1;
    into.structural ||= from.structural;
  };
  const atomPart = (atom: string, negated: boolean): Part => {
    const key = `${flags}/${negated ? "^" : ""}${atom}`;
    const known = cache?.parts.get(key);
    if (known) return { alphabet: known.alphabet, structural: known.structural };
    const alphabet = (cache?.byRegex ? undefined : simpleAlphabet(atom, flags)) ?? regexAlphabet(atom, flags);
    const part: Part = { alphabet, structural: negated || WHITESPACE.some((c) => alphabet[c] === 1) };
    cache?.parts.set(key, part);
    return { alphabet, structural: part.structural };
  };
  const skipQuantifier = (): void => {
    const q = /^(?:[*+?]|\{\d+(?:,\d*)?\})\??/.exec(source.slice(i, i + 24));
    if (q) i += q[0].length;
  };
  // Parses until ")" or the end; `top` collects items (else they are merged into the returned part).
  // The union is built only when it is used (a group, or a top-level alternation): merging costs
  // 128 steps per atom, and most atoms are top-level items of one branch.
  const parseAlternation = (top: Part[] | undefined): Part => {
    const items: Part[] = [];
    let branches = 1;
    while (i < source.length && source[i] !== ")") {
      if (source[i] === "|") {
        branches++;
        i++;
        continue;
      }
      const part = parseAtom(top !== undefined && items.length === 0 && branches === 1);
      skipQuantifier();
      if (part) items.push(part);
    }
    if (top && branches === 1) {
      top.push(...items);
      return EMPTY_PART;
    }
    const union = newPart();
    for (const part of items) merge(union, part);
    top?.push(union);
    return union;
  };
  const parseAtom = (first: boolean): Part | undefined => {
    const c = source[i]!;
    if (c === "(") {
      const head = /^\((?:\?<(?:[=!]|([A-Za-z_][A-Za-z0-9_]*)>)|\?[:=!])?/.exec(source.slice(i, i + 40))!;
      i += head[0].length;
      const name = head[1];
      const lookaround = !name && /[=!]$/.test(head[0]);
      const glue = lookaround && first && head[0] === "(?<=" ? LEAD_GLUE.exec(source.slice(i, i + 64)) : null;
      if (glue !== null) i += glue[0].length; // glued text is not part of the token
      if (lookaround && first && source.startsWith("(?<lead>", i)) {
        i += "(?<lead>".length;
        parsed.lead = parseAlternation(undefined);
        i += 2; // "))"
        return parsed.lead;
      }
      const inner = parseAlternation(undefined);
      i++; // ")"
      if (lookaround) return undefined;
      if (name === "secret") parsed.secret = inner;
      return inner;
    }
    if (c === "[") {
      let j = i + 1;
      if (source[j] === "^") j++;
      if (source[j] === "]") j++;
      while (j < source.length && source[j] !== "]") j += source[j] === "\\" ? 2 : 1;
      const cls = source.slice(i, j + 1);
      i = j + 1;
      return atomPart(cls, cls.startsWith("[^"));
    }
    if (c === "\\") {
      const d = source[i + 1] ?? "";
      let len = 2;
      if (d === "u") len = source[i + 2] === "{" ? source.indexOf("}", i) + 1 - i : 6;
      else if (d === "x") len = 4;
      else if (d === "c") len = 3;
      else if (d === "p" || d === "P" || d === "k") len = source.indexOf(d === "k" ? ">" : "}", i) + 1 - i;
      const atom = source.slice(i, i + len);
      i += len;
      if (d === "b" || d === "B") return undefined;
      return atomPart(atom, d === "S" || d === "W" || d === "D" || d === "P" || d === "k");
    }
    i++;
    if (c === "^" || c === "$") return undefined;
    return atomPart(c === "." ? "." : c.replace(/[{}]/, "\\$&"), c === ".");
  };
  parseAlternation(parsed.items);
  return parsed;
}

/** Union of the alphabets of `parts`; undefined when there are none or one is structural. */
function unionOf(parts: readonly Part[]): Uint8Array | undefined {
  if (parts.length === 0 || parts.some((p) => p.structural)) return undefined;
  const alphabet = new Uint8Array(128);
  for (const p of parts) for (let c = 0; c < 128; c++) if (p.alphabet[c]) alphabet[c] = 1;
  return alphabet;
}

/**
 * The alphabets a rule's boundaries derive from. `start`: the `lead` group when there is one (the
 * token's beginning, before its literal prefix), else the leading run of the pattern (its
 * top-level parts up to the first structural one), since only the token's first characters meet
 * what precedes it; `end`: the `secret` group when there is one (the value ends the finding), else
 * the trailing run. `undefined` when that run is empty (the pattern opens or closes with structure:
 * whitespace, a negated class), so no boundary is derived on that side.
 */
export function boundaryAlphabets(pattern: RegExp, cache?: AtomCache): { start: Uint8Array | undefined; end: Uint8Array | undefined } {
  const { items, secret, lead } = parseParts(pattern, cache);
  const firstStructural = items.findIndex((p) => p.structural);
  const lastStructural = items.map((p) => p.structural).lastIndexOf(true);
  return {
    start: lead ? (lead.structural ? undefined : unionOf([lead])) : unionOf(firstStructural === -1 ? items : items.slice(0, firstStructural)),
    end: secret ? (secret.structural ? undefined : unionOf([secret])) : unionOf(items.slice(lastStructural + 1)),
  };
}

/**
 * Every ASCII character a match of `pattern` can hold (the union of its parts' alphabets,
 * lookarounds left out but for a `lead`); undefined when a part is structural (whitespace, a negated
 * class: any character may follow) or the flags fold characters outside ASCII to ASCII letters
 * (`i` with `u` or `v`: `ſ` matches `s`). The decode layer refines a short prefix's gates with it
 * (engine/decode.ts, `base64Gates`).
 */
export function tokenAlphabet(pattern: RegExp, cache?: AtomCache): Uint8Array | undefined {
  if (pattern.flags.includes("i") && (pattern.flags.includes("u") || pattern.flags.includes("v"))) return undefined;
  return unionOf(parseParts(pattern, cache).items);
}

const BASE64_TEXT = /^[A-Za-z0-9+/]+$/;

/**
 * Shortest literal prefix that is distinctive although it is base64 text itself: random base64 data
 * holds a given 8-character string once in 64^8 (2.8e14) positions.
 */
const DISTINCTIVE_BASE64_PREFIX = 8;

/**
 * Boundary tables of a rule (see module doc) from its pattern's alphabet and its literal prefixes;
 * `undefined` when the pattern has no token alphabet.
 */
export function tokenBoundary(pattern: RegExp, prefixes: readonly string[], cache?: AtomCache): TokenBoundary | undefined {
  const { start, end } = boundaryAlphabets(pattern, cache);
  if (!start && !end) return undefined;
  const base64Prefix = prefixes.some((p) => BASE64_TEXT.test(p));
  // A token that starts with a distinctive literal prefix (not base64 text, or a long one) starts
  // after `/` or `+` even when its body's alphabet holds them: a path segment (`…/ui/whsec_…`) or a
  // form-encoded space (`Bearer+whsec_…`). Not for a `lead` rule: its token starts before the prefix.
  const distinctive = !LEAD_LOOKBEHIND.test(pattern.source) && prefixes.every((p) => !BASE64_TEXT.test(p) || p.length >= DISTINCTIVE_BASE64_PREFIX);
  const table = (runAlphabet: Uint8Array | undefined, side: "before" | "after"): Uint8Array | undefined => {
    if (!runAlphabet) return undefined;
    const alphabet = Uint8Array.from(runAlphabet);
    if (base64Prefix) alphabet[43] = 1; // +
    if (side === "before") alphabet[46] = 1; // . makes a dotted name
    if (side === "before" && distinctive) alphabet[43] = alphabet[47] = 0; // + /
    const t = new Uint8Array(128);
    for (let c = 0; c < 128; c++) {
      const separates = (side === "before" && c === 61) /* = */ || (side === "after" && c === 58); /* : */
      t[c] = isWordCode(c) ? WORD : alphabet[c] && !separates ? PUNCT : SEPARATOR;
    }
    return t;
  };
  return { before: table(start, "before"), after: table(end, "after") };
}

/** Is `text[i]` the letter of a `\n`, `\r` or `\t` escape (a backslash before it)? */
function isEscapeLetter(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  return (c === 110 || c === 114 || c === 116) && text.charCodeAt(i - 1) === 92;
}

const hexValue = (c: number): number => (c >= 48 && c <= 57 ? c - 48 : c >= 65 && c <= 70 ? c - 55 : c >= 97 && c <= 102 ? c - 87 : -1);

/** Value of the `count` hex digits ending at `last` (inclusive), or −1. */
function hexBefore(text: string, last: number, count: number): number {
  let v = 0;
  for (let k = last - count + 1; k <= last; k++) {
    const h = k >= 0 ? hexValue(text.charCodeAt(k)) : -1;
    if (h < 0) return -1;
    v = v * 16 + h;
  }
  return v;
}

/** Is the backslash at `i` an escape (preceded by an even number of backslashes)? */
function isEscapingBackslash(text: string, i: number): boolean {
  let k = i - 1;
  while (k >= 0 && text.charCodeAt(k) === 92) k--;
  return (i - k) % 2 === 1;
}

/**
 * The escape sequence ending at `i` (its last hex digit): percent-encoding `%XX`, a JSON or
 * JavaScript `\uXXXX`, a `\xXX`, as [code it stands for, offset of its first character]; undefined
 * when `text[i]` ends none. (HTML character references end in `;`, a separator already.)
 */
function escapeEndingAt(text: string, i: number): [number, number] | undefined {
  if (text.charCodeAt(i - 2) === 37 /* % */) {
    const v = hexBefore(text, i, 2);
    if (v >= 0) return [v, i - 2];
  }
  if (text.charCodeAt(i - 5) === 92 && text.charCodeAt(i - 4) === 117 /* \u */ && isEscapingBackslash(text, i - 5)) {
    const v = hexBefore(text, i, 4);
    if (v >= 0) return [v, i - 5];
  }
  if (text.charCodeAt(i - 3) === 92 && text.charCodeAt(i - 2) === 120 /* \x */ && isEscapingBackslash(text, i - 3)) {
    const v = hexBefore(text, i, 2);
    if (v >= 0) return [v, i - 3];
  }
  return undefined;
}

/** Most words joined by `+` read back by {@link isFormSpace}, and their longest. */
const MAX_FORM_WORDS = 4;
const MAX_FORM_WORD = 24;

/**
 * Is the `+` at `plus` a space of application/x-www-form-urlencoded text (`authorization=Bearer+…`,
 * `q=my+key+…`)? It is when the words of letters before it (each with a lowercase letter), joined
 * by `+`, start a form value (after `=`, `?` or `&`). Base64 data holds `+` too, but `=` only as padding at its end, and its `+` is
 * seldom preceded by a run of letters only that follows `=`. Reads at most ~100 code units.
 */
function isFormSpace(text: string, plus: number): boolean {
  let i = plus - 1;
  for (let words = 0; words < MAX_FORM_WORDS; words++) {
    const end = i;
    let lower = false;
    while (i >= 0 && end - i < MAX_FORM_WORD) {
      const c = text.charCodeAt(i);
      if (c >= 97 && c <= 122) lower = true;
      else if (c < 65 || c > 90) break;
      i--;
    }
    if (!lower) return false; // no word, or capitals only (`MIIB`, base64 of DER data)
    const c = text.charCodeAt(i);
    if (c === 61 || c === 63 || c === 38) return true; // = ? &
    if (c !== 43) return false;
    i--;
  }
  return false;
}

/**
 * Where a token whose `lead` group matched `text[from, to)` starts: past the letter of a `\n`, `\r`
 * or `\t` escape and past the hex digits of an escape sequence (`%3C`, `\u003c`) that the lead,
 * read leftwards as far as its alphabet goes, swallowed (`"a\ncontoso.webhook…`). `from` when
 * neither is there. Reads O(to − from) code units.
 */
export function leadStart(text: string, from: number, to: number): number {
  let p = from;
  while (p < to) {
    if (isEscapeLetter(text, p) && isEscapingBackslash(text, p - 1)) {
      p++;
      continue;
    }
    // Inside an escape sequence: one ending at p … p + 4 that starts before p.
    let after = -1;
    for (let k = 0; k <= 4 && p + k < to && after === -1; k++) {
      const e = escapeEndingAt(text, p + k);
      if (e !== undefined && e[1] < p) after = p + k + 1;
    }
    if (after === -1) break;
    p = after;
  }
  return p;
}

/**
 * True when a token starting at `start` in `text` is not glued to what precedes it. Reads at most
 * {@link MAX_PUNCT_RUN} + 2 code units, or escape sequences: an escape right before the token
 * (`%3Aghp_…`, `\u003cghp_…`, a URL-encoded JSON value) is read as the character it stands for,
 * not as its last hex digit touching the token.
 */
export function startsToken(b: TokenBoundary, text: string, start: number): boolean {
  if (!b.before || !isWordCode(text.charCodeAt(start))) return true;
  let i = start - 1;
  for (let run = 0; i >= 0; i--, run++) {
    let c = text.charCodeAt(i);
    const escape = c < 128 && b.before[c] === WORD ? escapeEndingAt(text, i) : undefined;
    if (escape !== undefined) [c, i] = escape;
    const cls = c < 128 ? b.before[c]! : SEPARATOR;
    if (cls === SEPARATOR || (c === 43 /* + */ && escape === undefined && isFormSpace(text, i))) return true;
    if (cls === WORD) return escape === undefined && isEscapeLetter(text, i);
    if (run === MAX_PUNCT_RUN) return true; // a long run of punctuation separates
  }
  return true;
}

/** True when a token ending at `end` (exclusive) in `text` is not glued to what follows it. */
export function endsToken(b: TokenBoundary, text: string, end: number): boolean {
  if (!b.after) return true;
  const n = text.length;
  let i = end;
  for (let run = 0; i < n; i++, run++) {
    const c = text.charCodeAt(i);
    const cls = c < 128 ? b.after[c]! : SEPARATOR;
    if (cls === SEPARATOR) return true;
    if (cls === WORD) return false;
    if (run === MAX_PUNCT_RUN) return true;
  }
  return true;
}

/**
 * End of a token once a trailing run of its alphabet's punctuation other than `=` is dropped
 * (`_` closing Markdown emphasis, `.` ending a sentence, `/` ending a path), or `end` unchanged.
 * A variable-length body swallows such characters when the alphabet has them; the caller keeps the
 * shorter token only if the rule's pattern still matches it exactly. `=` stays: it is base64 padding.
 */
export function trimmedEnd(b: TokenBoundary, text: string, start: number, end: number): number {
  if (!b.after) return end;
  let e = end;
  while (e > start) {
    const c = text.charCodeAt(e - 1);
    if (c >= 128 || c === 61 || b.after[c] !== PUNCT) break;
    e--;
  }
  return e;
}
