/**
 * The decode layer: finds the encoded runs of a text whose decoded form the engine scans again
 * (issue 10, "Encoded credentials"), each with a map from decoded offsets back to the text.
 *
 * Two kinds of run:
 * - **base64 / base64url**: a maximal run of at least {@link MIN_BASE64_RUN} characters of
 *   `[A-Za-z0-9+/_-]` (optionally `=` padded) not preceded by one of them, whose decoded bytes are
 *   all printable text (ASCII printable, tab, LF, CR, or UTF-8 above 0x7F). Covers the base64 of
 *   `user:<token>` in a Docker `config.json` `auth` value or an `Authorization: Basic` header and
 *   Kubernetes Secret `data:` values. Random or binary base64 (certificates, hashes, ordinary long
 *   words) is refused after its first 6 decoded bytes in the common case, so candidates cost O(1).
 *   A run whose first bytes are UTF-16LE ASCII text (each byte then a 0: PowerShell's
 *   `-EncodedCommand`; try16 F19) is decoded as UTF-16LE when every code unit is text.
 *   A run that is not text is read again at its 4 alignments, and a run decoded is also decoded
 *   without what characters glued before or after it may have added (engine/realign.ts).
 * - **hex**: a base64 run that is an even number of hex digits of one case (after an optional
 *   `0x`), or a wrapped block of such lines (`xxd -p`), whose bytes are text ({@link decodeHexRun},
 *   {@link decodeHexBlock}; gates: {@link hexGates}).
 * - **escapes**: the whitespace-delimited word around one or more escape sequences (words with
 *   escapes less than {@link ESCAPE_MERGE_GAP} apart, and what lies between them, make one run): percent-encoding
 *   `%XX` (RFC 3986 §2.1), JSON `\uXXXX` (RFC 8259 §7), HTML character references, numeric
 *   (`&#95;`, `&#x5F;`) and the named ones that stand for ASCII characters (`&lowbar;`, `&period;`,
 *   `&amp;` …; WHATWG HTML §13.5, named character references). The word is decoded as a whole
 *   (escape sequences replaced, other characters kept), so a token whose `_` is written `%5F`
 *   is whole again. JSON's `\\` is decoded too, and an escape of `%`, `&` or `\` starts a run when
 *   what follows makes an escape of a token character (`%255F`, `&amp;#95;`, JSON inside JSON
 *   `\\u005f`, `%5Cu005f`): one level per depth, so a token escaped twice is found at depth 2.
 *   Also C/JavaScript/Python `\xXX`, C/bash octal `\ooo` (`$'ghp\137…'`), code point escapes
 *   `\u{5f}` (ECMAScript 2015, Rust, Swift) and `\U0000005F` (Python, C), Python's `\N{LOW LINE}`
 *   (whose spaces do not end the word; try16 F2, F19) and, as a family of
 *   its own runs, quoted-printable `=XX` and soft line breaks (RFC 2045 §6.7; {@link escapeWords}).
 * - **line-wrapped base64** ({@link WrappedRun}): lines of one width of at least
 *   {@link MIN_WRAP_WIDTH} base64 characters (coreutils `base64` wraps at 76, PEM at 64, some at 40), the
 *   same lead on each (indentation of a YAML block scalar, `> ` of a block quote, `# ` of a comment, the
 *   `"` of a JSON array of lines: {@link isLeadChar}) and an optional tail (`",`: {@link isTailChar}),
 *   then a shorter last line, decoded as one run.
 *
 * Bounds: every run's decoded length is charged to a {@link DecodeBudget} shared by all depths of
 * one scan (the caller sizes it in proportion to the input: {@link decodeBudgetFor}); a run that no
 * longer fits is not decoded. Each run is found and decoded in time linear in its length, and runs
 * do not overlap, so one call is O(n). The caller limits the depth ({@link MAX_DECODE_DEPTH}).
 */

import { alignedSegments, cutSpans, MIN_SEGMENT_BYTES } from "./realign.js";

/**
 * How a run was encoded; a finding inside a run nested twice names both, outer first
 * (`base64/percent`). `string-concatenation` and `line-break` name a token joined across a seam
 * (engine/joins.ts), not a decoded run. A base64 run of UTF-16LE text is `base64-utf16le` (`base64url-utf16le`), of
 * UTF-16BE text `base64-utf16be` (`base64url-utf16be`).
 */
export type Encoding =
  | "base64"
  | "base64url"
  | "base64-utf16le"
  | "base64url-utf16le"
  | "base64-utf16be"
  | "base64url-utf16be"
  | "percent"
  | "json-unicode"
  | "html-entity"
  | "hex-escape"
  | "octal-escape"
  | "quoted-printable"
  | "code-point-escape"
  | "named-escape"
  | "css-escape"
  | "ansi-escape"
  | "line-continuation"
  | "hex"
  | "string-concatenation"
  | "line-break";

/** Decode-and-rescan depth: a token encoded twice (e.g. a JSON `\u` escape inside base64) is found, three times is not. */
export const MAX_DECODE_DEPTH = 2;

/**
 * Shortest base64 run decoded: 24 characters = 18 bytes, the shortest credential of the catalog
 * (an 18-character token; AWS key ids are 20) alone, or a shorter one with a `user:` in front. A
 * longer window is skipped faster (the run search looks at every 24th character in prose).
 */
export const MIN_BASE64_RUN = 24;

/**
 * Gate fragments read per prefix: the base64 of its first this many UTF-8 bytes. Shorter gates are
 * fewer automaton states; longer ones fewer false hits in prose.
 */
const GATE_BYTES = 4;

/**
 * The base64 characters fully determined by `bytes` wherever they sit in a decoded text: one
 * string per offset of their first byte in a 3-byte group (RFC 4648 §4: 6 bits per character).
 * E.g. `ghp_` gives `Z2hwX`, `docF`, `naHBf`. Empty strings are left out (1 byte at offset 1).
 */
function fixedBase64(bytes: ArrayLike<number>): string[] {
  const out: string[] = [];
  for (let offset = 0; offset < 3; offset++) {
    const first = Math.ceil((8 * offset) / 6);
    const last = Math.floor((8 * (offset + bytes.length)) / 6);
    if (last <= first) continue;
    // Characters first..last-1 of the base64 of `offset` zero bytes, then `bytes`, then zeros: 3
    // bytes make 4 characters (RFC 4648 §4). Plain arithmetic: this runs ~2 600 times per catalog
    // compile, where Buffer round trips were ~40 % of the compile.
    let s = "";
    for (let g = Math.floor(first / 4) * 3; 4 * (g / 3) < last; g += 3) {
      let v = 0;
      for (let k = g; k < g + 3; k++) v = (v << 8) | (k >= offset && k < offset + bytes.length ? bytes[k - offset]! & 0xff : 0);
      for (let c = 0; c < 4; c++) {
        const at = (4 * g) / 3 + c;
        if (at >= first && at < last) s += BASE64_CHARS[(v >> (18 - 6 * c)) & 63];
      }
    }
    out.push(s);
  }
  return out;
}

/** `s` in every mix of the two alphabets (`+`/`-` and `/`/`_` at each position: Node decodes a run mixing them). */
function alphabetVariants(s: string): string[] {
  if (s.indexOf("+") === -1 && s.indexOf("/") === -1) return [s];
  let out = [""];
  for (const ch of s) {
    const alts = ch === "+" ? ["+", "-"] : ch === "/" ? ["/", "_"] : [ch];
    out = out.flatMap((o) => alts.map((a) => o + a));
  }
  return out;
}

/** The latin1 bytes of the first `n` code units of `s` (each below 256 here: base64 or ASCII escapes). */
const latin1Head = (s: string, n: number): number[] => Array.from(s.slice(0, n), (ch) => ch.charCodeAt(0) & 0xff);

/** 256 entries, 1 for the bytes of `chars` (ASCII). */
const byteSet = (chars: string): Uint8Array => {
  const set = new Uint8Array(256);
  for (let i = 0; i < chars.length; i++) set[chars.charCodeAt(i)] = 1;
  return set;
};

const HEX_DIGITS = byteSet("0123456789ABCDEFabcdef");

/**
 * Escapes that can hide a token character ({@link isTokenCodePoint}): `\u00XX`, `\u{…}`, `\U000000XX`,
 * `\N{…}`, `%2X`…`%7X`, `&#…`,
 * `&lowbar;` …, each with the bytes that may follow it when it is shorter than {@link SHORT_HEAD}
 * bytes (a hex digit after `%2`, a digit or `x` after `&#`).
 */
function escapeIntroducers(): [string, Uint8Array | undefined][] {
  const named = [...NAMED_ENTITIES].filter(([, v]) => isTokenCodePoint(v.charCodeAt(0))).map(([k]): [string, undefined] => [`&${k};`, undefined]);
  const percent = ["%2", "%3", "%4", "%5", "%6", "%7"].map((e): [string, Uint8Array] => [e, HEX_DIGITS]);
  return [["\\u00", undefined], ["\\u{", undefined], ["\\U00", undefined], ["\\N{", undefined], ...percent, ["&#", byteSet("0123456789xX")], ...named];
}

/**
 * Prefixes and escape introducers shorter than this many UTF-8 bytes have their gates refined by
 * the byte that follows them: alone, a 2-byte prefix fixes only 2 base64 characters at each offset
 * (`s.` gives `cy`, `Mu`, `zL`), which occur in every page of prose (`policy`, `project`).
 */
export const SHORT_HEAD = 3;

/**
 * Characters of a prefix whose UTF-16LE bytes make its gates for base64 of UTF-16LE text
 * ({@link base64Gates}): 4 bytes, as many as {@link GATE_BYTES}, so the longest gate (5 characters)
 * stays as long (the seam search reads that many on each side of a line break: {@link nextCutLine}).
 */
const UTF16_GATE_CHARS = 2;

/** Most strings the characters added to one short fragment may expand to (one gate per choice). */
const MAX_GATE_VARIANTS = 8;

/**
 * The gate fragments of the short `bytes` (fewer than {@link SHORT_HEAD}) followed by one byte of
 * `following` (256 entries, 1 = possible): per offset of the first byte in a 3-byte group, the
 * base64 characters the known bytes fix, extended by the neighbouring character with the fewest
 * possible values (one string per value, at most {@link MAX_GATE_VARIANTS}) until the fragment has
 * 3 characters. E.g. `s.` followed by a letter or digit gives `cy4`/`cy5` (offset 0), `HMu`/`XMu`/
 * `nMu`/`3Mu` (offset 1), `zLj`…`zLn` (offset 2). Every base64 text of the bytes followed by a
 * byte of `following` holds one of them.
 */
function refinedBase64(bytes: ArrayLike<number>, following: Uint8Array): string[] {
  const all = Array.from({ length: 256 }, (_, b) => b);
  const known: number[][] = [...Array.from(bytes, (b) => [b]), all.filter((b) => following[b] === 1)];
  const out: string[] = [];
  for (let offset = 0; offset < 3; offset++) {
    const byteAt = (k: number): number[] => (k >= offset && k - offset < known.length ? known[k - offset]! : all);
    /** The values base64 character `j` can have: bits [6j, 6j + 6) of the byte stream. */
    const options = (j: number): number[] => {
      const b = (6 * j) >> 3;
      const r = (6 * j) & 7;
      const seen = new Uint8Array(64);
      if (r <= 2) for (const x of byteAt(b)) seen[(x >> (2 - r)) & 63] = 1;
      else {
        // r = 4: 4 low bits of byte b, 2 high bits of byte b + 1; r = 6: 2 low bits, then 4 high bits.
        const his = new Set(byteAt(b).map((x) => (r === 4 ? (x & 15) << 2 : (x & 3) << 4)));
        const los = new Set(byteAt(b + 1).map((y) => (r === 4 ? y >> 6 : y >> 4)));
        for (const h of his) for (const l of los) seen[h | l] = 1;
      }
      return Array.from(seen.keys()).filter((v) => seen[v] === 1);
    };
    const chars = Math.ceil((8 * (offset + known.length)) / 6);
    const opts = Array.from({ length: chars }, (_, j) => options(j));
    // The longest run of fixed characters, then the cheapest neighbour while the product allows.
    let [a, b] = [0, 0];
    for (let j = 0, runStart = 0; j <= chars; j++) {
      if (j < chars && opts[j]!.length === 1) continue;
      if (j - runStart > b - a) [a, b] = [runStart, j];
      runStart = j + 1;
    }
    let variants = 1;
    while (b - a < 3) {
      const left = a > 0 ? opts[a - 1]!.length : Infinity;
      const right = b < chars ? opts[b]!.length : Infinity;
      const grow = Math.min(left, right);
      if (variants * grow > MAX_GATE_VARIANTS) break;
      variants *= grow;
      if (left <= right) a--;
      else b++;
    }
    let strings = [""];
    for (let j = a; j < b; j++) strings = strings.flatMap((s) => opts[j]!.map((v) => s + BASE64_CHARS[v]));
    out.push(...strings);
  }
  return out;
}

/**
 * The gates of the decode layer for a catalog's `prefixes`: base64 fragments such that a base64
 * run whose decoded text (at depth 1 or, once more encoded, at depth 2) holds one of the prefixes or
 * an escape of a token character holds one of them. A run without any is not decoded: it cannot
 * give a finding. They are: for each prefix (its first {@link GATE_BYTES} bytes) and each escape
 * introducer, {@link fixedBase64} (3 offsets), or for one shorter than {@link SHORT_HEAD} bytes
 * with known `following` bytes (by prefix index: what a token may hold right after the prefix;
 * undefined = any) {@link refinedBase64}; for each of these fragments, its own {@link fixedBase64}
 * (base64 of base64); all in both alphabets. Undefined when a prefix is a single byte (at offset 1
 * no base64 character is fixed by it): then every run is decoded.
 * The scan adds the gates to its prefix automaton, so finding them costs no pass of its own.
 */
export function base64Gates(prefixes: readonly string[], following?: readonly (Uint8Array | undefined)[]): string[] | undefined {
  if (!canGate(prefixes)) return undefined;
  const gates = new Set<string>();
  const add = (fragment: string): void => {
    for (const v of alphabetVariants(fragment)) gates.add(v);
  };
  const addHead = (bytes: Uint8Array, after: Uint8Array | undefined): void => {
    const fragments = bytes.length < SHORT_HEAD && after !== undefined ? refinedBase64(bytes, after) : fixedBase64(bytes);
    for (const fragment of fragments) {
      for (const v of alphabetVariants(fragment)) {
        gates.add(v);
        for (const twice of fixedBase64(latin1Head(v, GATE_BYTES))) add(twice);
      }
    }
  };
  prefixes.forEach((p, i) => addHead(Buffer.from(p, "utf8").subarray(0, GATE_BYTES), following?.[i]));
  // UTF-16LE text (PowerShell's -EncodedCommand): each prefix's first UTF16_GATE_CHARS characters,
  // 2 bytes each (an ASCII prefix's bytes are its characters with a 0 after each); and UTF-16BE
  // text (Java's `getBytes(UTF_16)`, `iconv -t UTF-16BE`: a 0 before each).
  for (const p of prefixes) {
    const le = Buffer.from(p.slice(0, UTF16_GATE_CHARS), "utf16le");
    for (const fragment of fixedBase64(le)) add(fragment);
    for (const fragment of fixedBase64(Buffer.from(le).swap16())) add(fragment);
  }
  for (const [e, after] of escapeIntroducers()) {
    // An escape in base64 is decoded at depth 2 (base64, then the escape): no base64 of base64 of it.
    const bytes = Uint8Array.from(latin1Head(e, GATE_BYTES));
    for (const fragment of bytes.length < SHORT_HEAD ? refinedBase64(bytes, after!) : fixedBase64(bytes)) add(fragment);
  }
  return [...gates];
}

/**
 * Characters of a prefix whose hex makes its gate for hex runs ({@link hexGates}): 3 characters are
 * 6 hex digits (`ghp` → `676870`), as long as a base64 gate; a 40-digit SHA-1 holds a given 6-digit
 * string at one of its 35 places with odds of about 1 in 480 000.
 */
const HEX_GATE_CHARS = 3;

/**
 * The gates of hex runs for a catalog's `prefixes`: the hex of each prefix's first
 * {@link HEX_GATE_CHARS} characters (UTF-8 bytes, 2 digits each), lowercase and uppercase. A hex run
 * ({@link decodedRuns}) whose decoded text holds a prefix holds one of them: its bytes start at an
 * even digit, so no other alignment is needed. A prefix of 2 characters gives 4 digits.
 * The scan adds them to its prefix automaton beside {@link base64Gates}.
 */
export function hexGates(prefixes: readonly string[]): string[] {
  const gates = new Set<string>();
  for (const g of DER_KEY_GATES) {
    gates.add(g);
    gates.add(g.toUpperCase());
  }
  for (const p of prefixes) {
    const hex = Buffer.from(Array.from(p).slice(0, HEX_GATE_CHARS).join(""), "utf8").toString("hex");
    gates.add(hex);
    gates.add(hex.toUpperCase());
  }
  return [...gates];
}

/**
 * The hex of what follows a DER private key's SEQUENCE header (try18 F2; the kinds of
 * `pkcs-unarmored-private-key`): version 0 and a PKCS#8 AlgorithmIdentifier (rsaEncryption and
 * RSASSA-PSS, id-ecPublicKey, the EdDSA and X25519/X448 OIDs), version 0 and a PKCS#1 modulus
 * (`02 81`, `02 82`), SEC 1's version 1 and a 32-, 48- or 66-byte key. A hex run holding one is
 * read as DER ({@link derHexHead}) when it is not text.
 */
const DER_KEY_GATES = [
  "020100300d06092a864886f70d0101",
  "020100301306072a8648ce3d0201",
  "020100300506032b65",
  "0201000281",
  "0201000282",
  "0201010420",
  "0201010430",
  "0201010442",
];

/** Do `prefixes` have {@link base64Gates}? False when one is a single UTF-8 byte. */
export const canGate = (prefixes: readonly string[]): boolean => prefixes.every((p) => Buffer.byteLength(p, "utf8") >= 2);

/**
 * Does `text` hold a run of at least {@link MIN_BASE64_RUN} base64 characters (the only runs
 * {@link decodedRuns} decodes)? Reads the last character of each window first (like Boyer-Moore),
 * so prose is mostly skipped: about one code unit in five read. Stops at the first run.
 */
export function hasBase64Run(text: string): boolean {
  return nextRunStart(text, 0, MIN_BASE64_RUN) !== -1;
}

/**
 * Start of the first run of at least `min` base64 characters that begins at or after `from`, or
 * -1. `from` must be 0 or just after a non-base64 character, so a run found starts where it says.
 * Looks at the last character of each window first (like Boyer-Moore): in prose it is usually a
 * space or punctuation and the window is skipped whole; every character is read at most twice.
 */
function nextRunStart(text: string, from: number, min: number): number {
  const n = text.length;
  let i = from;
  while (i + min <= n) {
    const j = i + min - 1;
    if (!isB64(text, j)) {
      i = j + 1;
      continue;
    }
    let k = j - 1;
    while (k >= i && isB64(text, k)) k--;
    if (k < i) return i;
    i = k + 1;
  }
  return -1;
}

/** Decoded code units one scan may produce over all depths: 2 per input code unit, plus 64 Ki. */
export function decodeBudgetFor(inputLength: number): DecodeBudget {
  return { remaining: 2 * inputLength + 65_536 };
}

/** Decoded code units still allowed in this scan (mutated as runs are decoded). */
export interface DecodeBudget {
  remaining: number;
}

export interface DecodedRun {
  /** Span of the encoded run in the searched text (end exclusive). */
  readonly start: number;
  readonly end: number;
  /** Encodings found in the run, in a fixed order, joined by `+` when there are several (escapes). */
  readonly encoding: string;
  /** The decoded text. */
  readonly text: string;
  /**
   * Span in the searched text of the decoded span `[s, e)`: the encoded characters it came from
   * (for base64, the 4-character groups holding its bytes).
   */
  toOriginal(s: number, e: number): [number, number];
}

/** The characters of base64 runs: both alphabets (RFC 4648 §4 and §5), `=` padding excluded. */
const BASE64_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_";

const B64 = new Int8Array(128).fill(-1);
for (let i = 0; i < 64; i++) B64[BASE64_CHARS.charCodeAt(i)] = i;
B64["-".charCodeAt(0)] = 62;
B64["_".charCodeAt(0)] = 63;

/** Escaped words at most this many code units apart are decoded as one run. */
const ESCAPE_MERGE_GAP = 256;

/** 1 for the characters of base64 and base64url (`=` padding excluded), for every UTF-16 code unit (one lookup, no range check). */
const IS_B64 = new Uint8Array(65536);
for (let c = 0; c < 128; c++) IS_B64[c] = B64[c]! >= 0 ? 1 : 0;
const isB64 = (text: string, i: number): boolean => IS_B64[text.charCodeAt(i)] === 1;

/** End (exclusive) of the run of base64 characters (`=` excluded) of `text` from `from`. */
export function base64RunEnd(text: string, from: number): number {
  let i = from;
  while (i < text.length && IS_B64[text.charCodeAt(i)] === 1) i++;
  return i;
}


/** Named HTML character references for ASCII characters (and the ones most often seen in notes). */
const NAMED_ENTITIES: ReadonlyMap<string, string> = new Map(
  Object.entries({
    Tab: "\t", NewLine: "\n", excl: "!", quot: '"', QUOT: '"', num: "#", dollar: "$", percnt: "%", amp: "&", AMP: "&",
    apos: "'", lpar: "(", rpar: ")", ast: "*", midast: "*", plus: "+", comma: ",", period: ".", sol: "/", colon: ":",
    semi: ";", lt: "<", LT: "<", equals: "=", gt: ">", GT: ">", quest: "?", commat: "@", lsqb: "[", lbrack: "[",
    bsol: "\\", rsqb: "]", rbrack: "]", Hat: "^", lowbar: "_", UnderBar: "_", grave: "`", DiacriticalGrave: "`",
    lcub: "{", lbrace: "{", verbar: "|", vert: "|", VerticalLine: "|", rcub: "}", rbrace: "}", nbsp: "\u00a0",
    hyphen: "\u2010", dash: "\u2010", minus: "\u2212", shy: "\u00ad",
  }),
);

/** A byte (as a latin1 character) that is not text: a control character other than tab, LF, CR (≥ 0x80 is UTF-8, checked after decoding). */
// eslint-disable-next-line no-control-regex -- control characters are exactly what this looks for
const NOT_TEXT = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/;
/** A byte (as a latin1 character) that is not ASCII text: {@link NOT_TEXT} or ≥ 0x80. */
// eslint-disable-next-line no-control-regex -- as NOT_TEXT
const NOT_ASCII_TEXT = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\xff]/;
/** Printable ASCII, tab, LF, CR: what the first bytes of an encoded credential are (`user:`, `{"`, a token). */
const isAsciiTextByte = (b: number): boolean => (b >= 0x20 ? b < 0x7f : b === 9 || b === 10 || b === 13);

/** Space, tab, LF, VT, FF, CR (one comparison for every code unit above the space). */
const isSpace = (c: number): boolean => c <= 32 && (c === 32 || (c >= 9 && c <= 13));

/**
 * The encoded runs of `text` worth scanning again, in order of position (base64 runs, then escape
 * words), decoded within `budget`. O(text.length).
 *
 * `base64Hits`: the start offsets of the occurrences of {@link base64Gates} in `text`, in order of
 * their end (the scan's prefix automaton finds them in its one pass); then only the base64 runs
 * holding one are decoded, and no run is searched for. Without it every run of at least
 * {@link MIN_BASE64_RUN} characters is searched for and tried. `seams` (with `base64Hits`): the
 * gates looked for across the line breaks of wrapped base64 ({@link nextCutLine}), so a block
 * whose only gate is cut by a line break is decoded too; without `base64Hits`, a run's cuts
 * (engine/realign.ts) are decoded only when `seams` finds a gate in it.
 */
export function decodedRuns(text: string, budget: DecodeBudget, base64Hits?: readonly number[], seams?: SeamGates): DecodedRuns {
  const runs = new DecodedRuns(text.length);
  const n = text.length;
  /** Decoded bytes of the cuts ({@link decodeSpan}), and the budget when this call started. */
  let cutBytes = 0;
  const budgetAtStart = budget.remaining;
  /** Bytes the cuts may still decode: an eighth of what this call decoded otherwise, plus {@link CUT_ALLOWANCE}. */
  const cutRoom = (): number => (budgetAtStart - budget.remaining - cutBytes) / 8 + CUT_ALLOWANCE - cutBytes;
  const pool = runs.pool;
  // Line-wrapped base64: without gate hits, all blocks first (their lines' runs are then skipped
  // below, `blockEnd`); with gate hits, the block around each hit's line, and around each line
  // after a line break that cuts a gate (`seams`: one search for lines of at least MIN_WRAP_WIDTH
  // base64 characters, ~10 % of a Markdown scan's CPU time; bench/README.md).
  const blocks = base64Hits === undefined ? wrappedBlocks(text, budget, runs) : [];
  let nextBlock = 0;
  /** End of the decoded block holding `p` (its lines are read), or −1. Calls come in increasing `p`. */
  const blockEnd = (p: number): number => {
    while (nextBlock < blocks.length && blocks[nextBlock]!.end <= p) nextBlock++;
    const b = blocks[nextBlock];
    return b !== undefined && b.start <= p ? b.end : -1;
  };
  /** The run of base64 characters from `start` (at least MIN_BASE64_RUN long): decoded if it is text. */
  const fromStart = (start: number): number => {
    return fromRun(start, base64RunEnd(text, start + MIN_BASE64_RUN));
  };
  /**
   * The run `text[start, charsEnd)` of base64 characters decoded, ending at `end` (after padding);
   * false when it is not text. With `cuts`, also the spans of it without what glued characters
   * may have added (engine/realign.ts): groups before it that decoded to text too, and, unpadded,
   * bytes after its end.
   */
  const decodeSpan = (start: number, charsEnd: number, end: number, cuts: boolean): boolean => {
    const run = decodeBase64Run(text, start, charsEnd, end, budget, pool);
    if (run === SHORT) runs.addShort(start, end);
    else if (typeof run === "object") runs.push(run);
    if (run === NOT_TEXT_RUN) return false;
    // A run found without gate hits (every run is tried) is cut only when it holds a gate: a run
    // without one cannot give a finding, however cut (base64Gates).
    const room = cuts && run !== undefined && !(typeof run === "object" && run.utf16) ? cutRoom() : 0;
    if (room >= MIN_SEGMENT_BYTES && (base64Hits !== undefined || seams === undefined || seams.within(text, start, charsEnd))) {
      // Spans over the room are not even looked for (their words not read to the end): the loop
      // below would stop at the first of them.
      const spans = cutSpans(text, start, charsEnd, end === charsEnd, room);
      for (let k = 0; k < spans.length; k += 2) {
        // At most an eighth of what this call decoded otherwise, plus CUT_ALLOWANCE: text dense with
        // runs that can be cut (every run of `AAAA…` after a CR LF) decodes 4 spans per run else.
        if (Math.floor(((spans[k + 1]! - spans[k]!) * 3) / 4) > cutRoom()) break;
        const before = budget.remaining;
        separate(start);
        decodeSpan(spans[k]!, spans[k + 1]!, spans[k + 1]!, false);
        cutBytes += before - budget.remaining;
      }
    }
    return true;
  };
  /**
   * An empty run at `at` (an empty line in the joined text) before a run decoded from the same
   * characters as the one before it (a tail or another segment): at the next depth, two such lines
   * of base64 (a run and its shorter tail) would read as one line-wrapped block.
   */
  const separate = (at: number): void => {
    beginPoolRun(pool, 0);
    runs.addShort(at, at);
  };
  /**
   * The whole run `text[start, charsEnd)` of base64 characters, then its padding; when it is not
   * text, its spans that are at another alignment (characters glued before or after a base64
   * text: engine/realign.ts).
   */
  const fromRun = (start: number, charsEnd: number): number => {
    const hex = decodeHexRun(text, start, charsEnd, budget);
    if (hex !== undefined) {
      runs.push(hex);
      return charsEnd;
    }
    const end = paddingEnd(text, charsEnd);
    if (!decodeSpan(start, charsEnd, end, true)) {
      const segments = alignedSegments(text, start, charsEnd);
      for (let k = 0; k < segments.length; k += 2) {
        if (k > 0) separate(segments[k]!);
        decodeSpan(segments[k]!, segments[k + 1]!, segments[k + 1] === charsEnd ? end : segments[k + 1]!, true);
      }
    }
    return end;
  };
  if (base64Hits !== undefined) {
    // Only the runs holding a gate: each run is read once (a hit inside a run already read is
    // skipped; hits come in order of their end, so a later hit never starts before such a run).
    // Lines after a line break that cuts a gate (`seams`), merged with the hits by position. The
    // search for them goes no further than the next hit, and goes on from the end of what the
    // hits' blocks and runs have read (`done`): a block read is not searched through again. (A hit
    // starting a few code units before an earlier-ending one may be read in either order: each
    // path skips what is done.)
    const search: CutSearch = { from: seams === undefined ? n : 0 };
    let cut = -1;
    let done = 0;
    for (let h = 0; ; ) {
      const hit = h < base64Hits.length ? base64Hits[h]! : n;
      if (cut < done) {
        search.from = Math.max(search.from, done);
        cut = search.from < hit ? nextCutLine(text, search, hit, seams!) : -1;
      }
      let p: number;
      if (cut !== -1 && cut < hit) {
        p = search.from = cut;
        cut = -1;
      } else if (h < base64Hits.length) p = base64Hits[h++]!;
      else break;
      if (p < done || !isB64(text, p)) continue;
      let start = p;
      while (start > done && isB64(text, start - 1)) start--;
      let charsEnd = p + 1;
      while (charsEnd < n && isB64(text, charsEnd)) charsEnd++;
      const block = blockAround(text, start, charsEnd, done, budget, runs);
      if (block !== undefined) {
        // Not decoded as one: each line alone, as runs (a hit in a later line of it is skipped).
        if (!block.decoded) for (let l = 0; l < block.starts.length; l++) if (block.ends[l]! - block.starts[l]! >= MIN_BASE64_RUN) fromRun(block.starts[l]!, block.ends[l]!);
        done = block.end;
        continue;
      }
      done = charsEnd;
      if (charsEnd - start >= MIN_BASE64_RUN) fromRun(start, charsEnd);
    }
  } else {
    // Every run of at least MIN_BASE64_RUN characters ({@link nextRunStart}); each ends before a
    // non-base64 character, so the search goes on just after it.
    for (let i = nextRunStart(text, 0, MIN_BASE64_RUN); i !== -1; ) {
      const inBlock = blockEnd(i);
      i = nextRunStart(text, (inBlock >= 0 ? inBlock : fromStart(i)) + 1, MIN_BASE64_RUN);
    }
  }
  escapeWords(text, budget, runs, BACKSLASH_PERCENT_HTML);
  escapeWords(text, budget, runs, QUOTED_PRINTABLE);
  return runs;
}

/**
 * Which escapes a run decodes: {@link BACKSLASH_PERCENT_HTML} (`%XX`, `\uXXXX`, `\\`, `\xXX`,
 * `\ooo`, character references) or {@link QUOTED_PRINTABLE} (`=XX`, soft line breaks). Two
 * families, each its own runs: a quoted-printable `=` is an assignment in the other family's words
 * (`?key=4F…` would lose its value's first characters), and a `%` or `\` is plain text in a MIME
 * body. A word escaped in both ways is decoded once per family, and the other family's escapes in
 * the decoded text are decoded at the next depth.
 */
type EscapeFamily = 0 | 1;
const BACKSLASH_PERCENT_HTML: EscapeFamily = 0;
const QUOTED_PRINTABLE: EscapeFamily = 1;

/** The code units that start an escape sequence of each family ({@link tokenEscapeAt}). */
const INTRODUCERS: readonly (readonly string[])[] = [["%", "\\", "&", "^"], ["="]];

/** Does `c` start an escape sequence of `family`? */
const isIntroducer = (c: number, family: EscapeFamily): boolean => (family === QUOTED_PRINTABLE ? c === 61 : c === 37 || c === 92 || c === 38 || c === 94);

/**
 * A soft line break of quoted-printable (RFC 2045 §6.7 rule 5: `=` at the end of a line, the
 * line break removed when decoding) at `q`: its length (2 for `=` LF, 3 for `=` CR LF), else 0.
 */
function softBreakAt(text: string, q: number): number {
  const d = text.charCodeAt(q + 1);
  if (d === 10) return 2;
  return d === 13 && text.charCodeAt(q + 2) === 10 ? 3 : 0;
}

/**
 * Does the soft line break `text[q, q + soft)` start a quoted-printable run? Only inside a word: a
 * token character on each side (not `x =` at the end of a line of code), at the end of a line of
 * {@link QP_LINE_MIN} to {@link QP_LINE_MAX} characters, and not base64 padding:
 * a line of base64 ending in `==`, or in `=` after a character whose 2 low bits are zero
 * (RFC 4648 §3.5) on a line of nothing but base64 of a length that `=` completes to whole groups
 * (the last line of a wrapped block: joined to the next line, it would be decoded again as base64
 * with that line's text glued to it). A token cut by a soft break on a line of nothing but its
 * first part passes that last test too in about 1 case of 16; it is then not found.
 * Reads at most {@link QP_LINE_MAX} code units.
 */
function softBreakStartsRun(text: string, q: number, soft: number): boolean {
  const before = text.charCodeAt(q - 1);
  if (q === 0 || before === 61 || !isTokenCodePoint(before) || !isTokenCodePoint(text.charCodeAt(q + soft))) return false;
  // The line's length with its `=`: an encoder breaks where the line would pass 76 characters.
  let lineStart = q;
  while (lineStart > 0 && q - lineStart < QP_LINE_MAX && text.charCodeAt(lineStart - 1) !== 10) lineStart--;
  const length = q + 1 - lineStart;
  if ((lineStart > 0 && text.charCodeAt(lineStart - 1) !== 10) || length < QP_LINE_MIN) return false;
  if (!isB64(text, q - 1) || (B64[before]! & 3) !== 0) return true;
  for (let i = lineStart; i < q; i++) if (!isB64(text, i)) return true;
  return !(length >= MIN_BASE64_RUN && length % 4 === 0);
}

/**
 * Lengths (with the `=`) of a line a soft line break ends: at most 76 (RFC 2045 §6.7 rule 5), and
 * encoders break as late as they can (an escape that does not fit moves to the next line: 73-76),
 * so at least 60. A token that ends in `=` (base64 padding) before a line break on a shorter or
 * longer line is not joined to the next line (a longer finding there would replace the plain one).
 */
const QP_LINE_MIN = 60;
const QP_LINE_MAX = 76;

/**
 * The words of `text` around escapes of `family` that start a run ({@link tokenEscapeAt}),
 * decoded within `budget` and pushed to `runs`. Candidates are found with native indexOf per
 * introducer (one forward-only cursor each: linear; a global regex search for them was measured at
 * half the cost of the whole scan on prose) and checked by {@link tokenEscapeAt}, which refuses
 * most of those in prose (`100% `, `\*`, `R&D`, `a = b`) at the code unit after them. Only escapes
 * of characters a token can hold start or extend a run (`&nbsp;`, `&lt;`, `%20` do not): an
 * escaped word of HTML or a URL with encoded spaces is not decoded and scanned again for nothing.
 * A word is delimited by whitespace; for quoted-printable, a soft line break does not end it (a
 * token cut at column 76 of a MIME body is whole again). O(text.length).
 */
function escapeWords(text: string, budget: DecodeBudget, runs: DecodedRuns, family: EscapeFamily): void {
  const n = text.length;
  const introducers = INTRODUCERS[family]!;
  const cursors = introducers.map((c) => text.indexOf(c));
  if (cursors.every((c) => c === -1)) return;
  const qp = family === QUOTED_PRINTABLE;
  /** A soft line break's LF or CR at `i` (quoted-printable only): the word goes on after it. */
  const inSoftBreak = (i: number): boolean => {
    if (!qp) return false;
    const c = text.charCodeAt(i);
    return (c === 10 && (text.charCodeAt(i - 1) === 61 || (text.charCodeAt(i - 1) === 13 && text.charCodeAt(i - 2) === 61))) || (c === 13 && text.charCodeAt(i + 1) === 10 && text.charCodeAt(i - 1) === 61);
  };
  const wordEnd = (from: number): number => {
    let end = from;
    for (;;) {
      if (end >= n) return n;
      const c = text.charCodeAt(end);
      // A name escape's spaces (`\N{LOW LINE}`, escaped once more `\\N{…}`) do not end the word.
      if (c === 92 /* \ */ && !qp) {
        const named = namedEscapeLength(text, end);
        const twice = named === 0 && text.charCodeAt(end + 1) === 92 ? namedEscapeLength(text, end + 1) : 0;
        // A CSS escape's space (`ghp\5f abc`) does not end the word either.
        const css = named === 0 && twice === 0 && isHexDigit(text.charCodeAt(end + 1)) ? cssEscapeLength(text, end) : 0;
        // Nor a shell line continuation's line break.
        const continued = named === 0 && twice === 0 && css === 0 ? continuationLength(text, end) : 0;
        end += named > 0 ? named : twice > 0 ? 1 + twice : css > 0 ? css : continued > 0 ? continued : 1;
      } else if (!isSpace(c) || inSoftBreak(end)) end++;
      else return end;
    }
  };
  let escapeLength = 0;
  /** Was the last candidate found within {@link NEAR_INTRODUCER} code units of where its search began? */
  let near = false;
  /** Start of the first escape at or after `from` that starts or extends a run (its length in `escapeLength`), or −1. */
  const nextEscape = (from: number): number => {
    for (;;) {
      let q = -1;
      // Where the candidates come close together (`&a&a…`, one refused every 2 code units, where
      // an indexOf call each cost more), the next few code units are read inline first; elsewhere
      // (prose: `a = b`, `?size=40`, 100%) straight to indexOf (those reads cost ~30 ns a candidate).
      if (near) {
        for (let i = from, stop = Math.min(n, from + NEAR_INTRODUCER); i < stop; i++) {
          if (isIntroducer(text.charCodeAt(i), family)) {
            q = i;
            break;
          }
        }
        if (q !== -1) {
          escapeLength = tokenEscapeAt(text, q);
          if (escapeLength > 0) return q;
          from = q + 1;
          continue;
        }
        from = Math.min(n, from + NEAR_INTRODUCER);
      }
      const searched = from;
      for (let k = 0; k < cursors.length; k++) {
        let c = cursors[k]!;
        if (c !== -1 && c < from) c = cursors[k] = text.indexOf(introducers[k]!, from);
        if (c !== -1 && (q === -1 || c < q)) q = c;
      }
      if (q === -1) return -1;
      near = q - searched < NEAR_INTRODUCER;
      escapeLength = tokenEscapeAt(text, q);
      if (escapeLength > 0) return q;
      from = q + 1;
    }
  };
  let q = nextEscape(0);
  while (q !== -1) {
    let start = q;
    while (start > 0 && (!isSpace(text.charCodeAt(start - 1)) || inSoftBreak(start - 1))) start--;
    let end = wordEnd(qp ? q + escapeLength : q); // from q: an escaped name escape (`\\N{LOW LINE}`) is read whole
    // Words with escapes close to each other make one run, so many short escaped words cost one
    // decode and one scan, not one each (the plain words between them are scanned twice at most).
    q = nextEscape(end);
    // Whether the run holds `BEGIN` is read once (a run keeps it): a run merged again and again
    // across long gaps is read once in all.
    let begin: boolean | undefined;
    const armorEnds = (): boolean => (begin ??= holds(text, start, end, "BEGIN")) && holds(text, q, wordEnd(q), "END");
    while (q !== -1 && (q - end <= ESCAPE_MERGE_GAP || (!qp && q - end <= ARMOR_MERGE_GAP && armorEnds()))) {
      end = wordEnd(qp ? q + escapeLength : q);
      q = nextEscape(end);
    }
    const run = decodeEscapes(text, start, end, budget, family);
    if (run) runs.push(run);
  }
}

/**
 * Longest plain text between an escaped word holding `BEGIN` and one holding `END` that still
 * makes them one run: a key block whose armor alone is escaped (an HTML export writes
 * `&#45;&#45;&#45;&#45;&#45;BEGIN PRIVATE KEY&#45;…`, its base64 body plainly) is decoded whole,
 * body included, so the key rules see the block (a 16 384-bit RSA key's PEM is ~12 KiB).
 */
const ARMOR_MERGE_GAP = 16 * 1024;

/** Does `text[from, to)` hold `word`? Reads to − from code units at most (no search past `to`). */
function holds(text: string, from: number, to: number, word: string): boolean {
  const first = word.charCodeAt(0);
  for (let i = from, last = to - word.length; i <= last; i++) if (text.charCodeAt(i) === first && text.startsWith(word, i)) return true;
  return false;
}

/** Code units read one by one for the next escape introducer before the indexOf search, where candidates come close together ({@link escapeWords}). */
const NEAR_INTRODUCER = 8;

/**
 * Decoded bytes the cuts of one {@link decodedRuns} call (engine/realign.ts) may take besides an
 * eighth of what it decoded otherwise: 4 cuts of the longest (1 024 bytes), or ~100 of short runs.
 */
const CUT_ALLOWANCE = 4096;

/**
 * Shortest full line of a wrapped base64 block (coreutils `base64` wraps at 76, PEM and `openssl
 * base64` at 64; try14 F8: a note held base64 of `user:<token>` wrapped at 40). Lines of 40 base64
 * characters and more are rare in prose; a list of 40-character hex ids (git commits) is a block
 * whose decoding is refused at its first bytes (not text), as each line alone was already.
 */
export const MIN_WRAP_WIDTH = 40;

/**
 * A decoded block of line-wrapped base64: lines of one width W >= {@link MIN_WRAP_WIDTH}, each
 * nothing but base64 between the same lead ({@link isLeadChar}: a YAML block scalar's indentation, a
 * block quote's `> `) and a tail ({@link isTailChar}: `",` in a JSON array of lines), then
 * possibly one line of at most W characters (padding included). Its lines' characters are decoded
 * as one run, so a token cut by a line break is whole again.
 */
class WrappedRun implements DecodedRun {
  constructor(
    readonly start: number,
    readonly end: number,
    private readonly inner: Base64Run,
    /** The block's {@link LineMap} (at offset 0). */
    private readonly lines: Int32Array,
    /**
     * Characters a glued first line ({@link readBlock}) lacks to the block's width: the map's first
     * line starts that many characters before the glued line's base64, so its offsets hold.
     */
    private readonly pad = 0,
  ) {}

  get encoding(): string {
    return this.inner.encoding;
  }

  get text(): string {
    return this.inner.text;
  }

  // The joined characters' span (whole 4-character groups, as for one line), mapped line by line:
  // the finding starts where the token's first group is written, and spans the line breaks it crosses.
  toOriginal(s: number, e: number): [number, number] {
    const [a, b] = this.inner.toOriginal(s, e);
    return [wrappedOffset(this.lines, 0, a + this.pad, false), Math.min(this.end, wrappedOffset(this.lines, 0, b + this.pad, true))];
  }
}

/**
 * Where the lines of a wrapped block are (a "line map", stored from `map[at]`): its line count L,
 * its width W (every line but the last has W base64 characters: {@link readBlock}), the count of
 * its base64 characters, then the L offsets in the searched text of each line's first one.
 */
type LineMap = ArrayLike<number>;

/**
 * Offset in the searched text of joined base64 character `c` of the block whose {@link LineMap}
 * is at `map[at]` (`afterEnd`: the offset just after character `c − 1`).
 */
function wrappedOffset(map: LineMap, at: number, c: number, afterEnd: boolean): number {
  const q = afterEnd ? c - 1 : c;
  const width = map[at + 1]!;
  const line = Math.min(map[at]! - 1, Math.floor(q / width));
  const offset = map[at + 3 + line]! + q - line * width;
  return afterEnd ? offset + 1 : offset;
}

/**
 * The wrapped base64 blocks of `text` (see {@link WrappedRun}) that decode to text within `budget`,
 * pushed to `runs`; returned as spans in order. Lines of at least {@link MIN_WRAP_WIDTH} base64
 * characters are searched for like the runs of {@link decodedRuns} ({@link nextRunStart}); from one that is a whole line, the block is read forward line
 * by line. Every character is read at most twice: O(text.length). A block that does not decode is
 * left to the run search (each of its lines is then tried alone).
 */
function wrappedBlocks(text: string, budget: DecodeBudget, runs: DecodedRuns): { start: number; end: number }[] {
  const out: { start: number; end: number }[] = [];
  let floor = 0;
  for (let start = nextRunStart(text, 0, MIN_WRAP_WIDTH); start !== -1; ) {
    // A run of at least MIN_WRAP_WIDTH: is it a whole line (indentation before, line end after)?
    const charsEnd = base64RunEnd(text, start);
    const lineStart = leadStart(text, start, 0);
    // A line break after it and its tail (not the text's end).
    const next = lineEndAfterTail(text, charsEnd)[1];
    const whole = lineStart === 0 || text.charCodeAt(lineStart - 1) === 10;
    // A glued first line (try18 F1): this run after other text, or a shorter run ending the line
    // before this one after other text.
    let glued: ReadBlock | undefined;
    if (!whole && next !== -1 && next < text.length) glued = readGluedBlock(text, start, charsEnd, budget, runs);
    if (glued === undefined && whole && next !== -1) {
      const before = runEndingLineBefore(text, lineStart, floor, MIN_WRAP_WIDTH - 1);
      const block = before === undefined ? undefined : readBlock(text, start, charsEnd, lineStart, budget, runs, before[0], before[1]);
      if (block?.decoded) glued = block;
    }
    if (glued !== undefined) {
      out.push({ start: glued.starts[0]!, end: glued.end });
      floor = glued.end;
      start = nextRunStart(text, glued.end + 1, MIN_WRAP_WIDTH);
      continue;
    }
    if (!whole || next === -1 || next > text.length) {
      start = nextRunStart(text, charsEnd + 1, MIN_WRAP_WIDTH);
      continue;
    }
    const block = readBlock(text, start, charsEnd, lineStart, budget, runs);
    if (block.decoded) out.push({ start, end: block.end });
    floor = block.end;
    start = nextRunStart(text, block.end + 1, MIN_WRAP_WIDTH);
  }
  return out;
}

/**
 * Characters of a line's lead, before a wrapped block's base64 (every line of a block has the same
 * lead): indentation (a YAML block scalar), a block quote `>`, a comment marker `#`, `;` or `//`, a
 * list item `*` or `-`, a table cell `|`, a string's opening quote (a JSON array of lines; try16 F1).
 * `-` and `/` are base64 characters as well: the lead ends where the run search put the run's start.
 */
const isLeadChar = (c: number): boolean =>
  c === 32 || c === 9 || c === 62 /* > */ || c === 35 /* # */ || c === 59 /* ; */ || c === 47 /* / */ || c === 42 /* * */ || c === 45 /* - */ || c === 124 /* | */ || c === 34 /* " */ || c === 39; /* ' */

/** Longest lead read before a line's base64, in code units (bounds the walk back from each run). */
const MAX_LEAD = 32;

/**
 * Characters a wrapped block's line may end with after its base64 and padding: blanks and `\` (the
 * two Markdown hard line breaks), a closing quote, a comma, a table cell's `|` (`  "QUFB…",` in a JSON
 * array, `| QUFB… |` in a table).
 */
const isTailChar = (c: number): boolean => c === 32 || c === 9 || c === 92 /* \ */ || c === 34 || c === 39 || c === 44 /* , */ || c === 124;

/** Longest tail read after a line's base64, in code units. */
const MAX_TAIL = 8;

/** Start of the lead (up to {@link MAX_LEAD} lead characters, not before `floor`) of the run at `start`. */
function leadStart(text: string, start: number, floor: number): number {
  let ls = start;
  while (ls > floor && start - ls < MAX_LEAD && isLeadChar(text.charCodeAt(ls - 1))) ls--;
  return ls;
}

/** Do `text[a, a + length)` and `text[b, b + length)` hold the same code units? */
function sameCodeUnits(text: string, a: number, b: number, length: number): boolean {
  for (let i = 0; i < length; i++) if (text.charCodeAt(a + i) !== text.charCodeAt(b + i)) return false;
  return true;
}

/** {@link lineEndOf} after up to {@link MAX_TAIL} tail characters from `from`. */
function lineEndAfterTail(text: string, from: number): [number, number] {
  let e = from;
  while (e < text.length && e - from < MAX_TAIL && isTailChar(text.charCodeAt(e))) e++;
  return lineEndOf(text, e);
}

/**
 * The decode layer's gates ({@link base64Gates}) looked for across a line break: the scan's gated
 * prefix automaton (engine/prefix-automaton.ts, `occursAcross`).
 */
export interface SeamGates {
  /** Length of the longest gate, in code units. */
  readonly longest: number;
  /** Does a gate start in `text[a, e)` and end in `text[s, t)`, the two read as one string? */
  across(text: string, a: number, e: number, s: number, t: number): boolean;
  /** Does a gate occur whole in `text[s, t)`? */
  within(text: string, s: number, t: number): boolean;
}

/** Where {@link nextCutLine} goes on: the lines before `from` have been looked at (updated by it). */
interface CutSearch {
  from: number;
}

/**
 * Start (first base64 character) of the first line of `text` that follows a line break cutting a
 * gate of `seams` in two, looking at the lines before the breaks whose base64 starts at or after
 * `search.from` and before `until`; −1 when there is none (then `search.from` is where to go on:
 * the first such run at or after `until`, or the text's length). The line before the break is
 * nothing but at least {@link MIN_WRAP_WIDTH} base64 characters after its lead (and before its tail),
 * the line after has the same lead, then base64; a gate starts in the last `longest − 1` characters
 * before the break and ends in the first `longest − 1` after it. The scan's gate hits only see a
 * gate whole on one line; the caller reads the block around the line returned ({@link
 * blockAround}), which decides whether it is a wrapped block. Lines are searched for like {@link
 * wrappedBlocks} does (the last character of each window first, so prose is mostly skipped); each
 * character is read at most twice, plus 2 × (`longest` − 1) per line break: O(length searched).
 * `search.from` must be 0, a line's first base64 character or a non-base64 character.
 */
function nextCutLine(text: string, search: CutSearch, until: number, seams: SeamGates): number {
  const n = text.length;
  const reach = seams.longest - 1;
  let start = nextRunStart(text, search.from, MIN_WRAP_WIDTH);
  for (; start !== -1 && start < until; start = nextRunStart(text, search.from, MIN_WRAP_WIDTH)) {
    const charsEnd = base64RunEnd(text, start + MIN_WRAP_WIDTH);
    search.from = charsEnd + 1;
    const next = lineEndAfterTail(text, charsEnd)[1];
    const lineStart = leadStart(text, start, 0);
    const whole = lineStart === 0 || text.charCodeAt(lineStart - 1) === 10;
    if (whole && lineStart > 0) {
      // A shorter glued first line before this one, which may be the last (padded) (try18 F1; a
      // longer one was looked at as a run).
      const glued = runEndingLineBefore(text, lineStart, 0, MIN_WRAP_WIDTH - 1);
      if (glued !== undefined && lineEndAfterTail(text, paddingEnd(text, charsEnd))[0] !== -1 && seams.across(text, Math.max(glued[0], glued[1] - reach), glued[1], start, Math.min(charsEnd, start + reach))) return start;
    }
    if (next === -1 || next >= n) continue;
    let s = next + start - lineStart;
    if (!whole) {
      // Base64 ending its line after other text: a glued first line (try18 F1).
      s = text.charCodeAt(charsEnd) === 61 /* = */ ? -1 : lineRunStart(text, next);
      if (s < 0) continue;
    } else if (s >= n || !sameCodeUnits(text, lineStart, next, start - lineStart) || !isB64(text, s)) continue;
    search.from = s; // the next line may be one of these lines too
    let t = s + 1;
    while (t < n && t - s < reach && isB64(text, t)) t++;
    if (seams.across(text, charsEnd - reach, charsEnd, s, t)) return s;
  }
  search.from = start === -1 ? n : start;
  return -1;
}

/** `charsEnd` (the end of a run's base64 characters) after up to two `=` of padding. */
function paddingEnd(text: string, charsEnd: number): number {
  let end = charsEnd;
  for (let pad = 0; pad < 2 && text.charCodeAt(end) === 61 /* = */; pad++) end++;
  return end;
}

/**
 * Does the line end at `from` (LF, CR LF or the text's end)? Then `[from, the next line's start]`
 * (n + 1 at the text's end), else `[-1, -1]`. O(1): searching for the line's end from a run that
 * ends elsewhere (an LF search) read on to the end of a long line at every run of it (one line of
 * 60-character runs apart by spaces: 4x the input cost 6x).
 */
function lineEndOf(text: string, from: number): [number, number] {
  if (from >= text.length) return [from, from + 1];
  const c = text.charCodeAt(from);
  if (c === 10) return [from, from + 1];
  return c === 13 && text.charCodeAt(from + 1) === 10 ? [from, from + 2] : [-1, -1];
}

/**
 * The block of line-wrapped base64 ({@link WrappedRun}) whose first line's characters are
 * `text[start, charsEnd)` after the lead `text[lead, start)`, read forward line by line (each line
 * with the same lead, {@link sameCodeUnits}) and
 * decoded (pushed to `runs`) when it has at least two lines and decodes to text. `end`: the end of
 * its last line (padding included) when it has two lines or more, else `charsEnd`.
 *
 * With `glued` ≥ 0, the block starts one line earlier with the base64 `text[glued, gluedEnd)` that
 * ends its line after other text (`key: QQBC…`, `powershell -EncodedCommand QQBC…`: try18 F1): {@link readGluedBlock}; the line at `start` may then be its last
 * (shorter than the glued line, or padded).
 */
function readBlock(text: string, start: number, charsEnd: number, lead: number, budget: DecodeBudget, runs: DecodedRuns, glued = -1, gluedEnd = -1): ReadBlock {
  const n = text.length;
  const indent = start - lead;
  // After a glued first line, the line at `start` is the last when it is padded. (When it is
  // shorter than the glued line and lines follow it, the glued line is longer than the block's
  // width: no part of it. Read as the last, a glued run of whole groups decoding to text would make a
  // block that ends one line early.)
  const padded = glued >= 0 ? paddingEnd(text, charsEnd) : charsEnd;
  const last = padded !== charsEnd;
  const [firstEnd, next] = lineEndAfterTail(text, padded);
  if (firstEnd === -1 || (next > n && glued < 0)) return { end: charsEnd, decoded: false, starts: [start], ends: [charsEnd] };
  const width = charsEnd - start;
  const starts = [start];
  const ends = [charsEnd];
  let blockEnd = padded;
  let at = next;
  for (; !last; ) {
    const s = at + indent;
    if (s >= n || !sameCodeUnits(text, lead, at, indent) || !isB64(text, s)) break;
    const ce = base64RunEnd(text, s);
    const end = paddingEnd(text, ce);
    const [lineContentEnd, lineNext] = lineEndAfterTail(text, end);
    if (lineContentEnd === -1 || end - s > width) break;
    starts.push(s);
    ends.push(ce);
    blockEnd = end;
    if (end - s < width || end !== ce || lineNext > n) break; // the shorter (or padded) last line
    at = lineNext;
  }
  if (glued >= 0) return decodeGluedBlock(text, glued, gluedEnd, starts, ends, blockEnd, budget, runs);
  if (starts.length < 2) return { end: blockEnd, decoded: false, starts, ends };
  const lineCount = starts.length;
  let total = 0;
  for (let l = 0; l < lineCount; l++) total += ends[l]! - starts[l]!;
  const hex = blockEnd === ends[lineCount - 1] ? decodeHexBlock(text, starts, ends, width, total, start, blockEnd, budget) : undefined;
  if (hex !== undefined) {
    runs.push(hex);
    return { end: blockEnd, decoded: true, starts, ends };
  }
  // A short block of ASCII text (the common kind, and the one an input can hold one per two lines)
  // is decoded line by line into the pool, like a short run: no joined string, Buffer or object.
  if (total <= SHORT_BLOCK && asciiTextHead(text, start) && Math.floor((total * 3) / 4) <= budget.remaining) {
    const pool = runs.pool;
    beginPoolRun(pool, Math.floor((total * 3) / 4));
    let ascii = true;
    for (let l = 0; l < lineCount && ascii; l++) ascii = appendAscii(text, starts[l]!, ends[l]!, pool);
    if (ascii) {
      budget.remaining -= pool.last;
      runs.addShort(start, blockEnd, starts, width, total);
      return { end: blockEnd, decoded: true, starts, ends };
    }
  }
  const map = new Int32Array(3 + lineCount);
  map[0] = lineCount;
  map[1] = width;
  map[2] = total;
  const parts: string[] = [];
  for (let l = 0; l < lineCount; l++) {
    map[3 + l] = starts[l]!;
    parts.push(text.slice(starts[l], ends[l]));
  }
  const chars = parts.join("");
  const decoded = decodeBase64Run(chars, 0, chars.length, chars.length, budget, undefined);
  if (typeof decoded !== "object") return { end: blockEnd, decoded: false, starts, ends };
  runs.push(new WrappedRun(start, blockEnd, decoded, map));
  return { end: blockEnd, decoded: true, starts, ends };
}

/**
 * The block of a glued first line `text[glued, gluedEnd)` and the lines `[starts[l], ends[l])` read
 * after it ({@link readBlock}), decoded as one run (pushed to `runs`) when its width W (the first of
 * those lines', or the glued line's when that one is the last and shorter) is at least
 * {@link MIN_WRAP_WIDTH}, the glued line has at most W characters, and the whole decodes to text.
 * The glued line may be shorter than W (a command line wrapped as a whole: `-e QQBC…` then lines
 * of W): its characters are joined as they are, so the bytes after it keep their alignment (a
 * UTF-16LE text's code units start at even bytes only from the block's real start; try18 F1).
 */
function decodeGluedBlock(text: string, glued: number, gluedEnd: number, starts: number[], ends: number[], blockEnd: number, budget: DecodeBudget, runs: DecodedRuns): ReadBlock {
  const g = gluedEnd - glued;
  const first = ends[0]! - starts[0]!;
  if (g > first && starts.length === 2 && ends[1]! - starts[1]! < first) {
    // A line shorter than the glued one, then a shorter one still: the first is the block's last,
    // the other a word of base64 characters after it (`EOF` of a heredoc, `after`).
    starts.length = ends.length = 1;
    blockEnd = ends[0]!;
  }
  const width = starts.length === 1 ? Math.max(g, first) : first;
  const allStarts = [glued, ...starts];
  const allEnds = [gluedEnd, ...ends];
  // A wrapped line is at least MIN_WRAP_WIDTH columns: the glued line with what precedes it when
  // the line after it is the last (`-e QQBC…` wrapped as a whole, then the rest), else the lines after it.
  let columns = g;
  while (columns < MIN_WRAP_WIDTH && glued - (columns - g) > 0 && text.charCodeAt(glued - (columns - g) - 1) !== 10) columns++;
  if (g > width || (starts.length === 1 ? Math.max(columns, first) : width) < MIN_WRAP_WIDTH) return { end: blockEnd, decoded: false, starts: allStarts, ends: allEnds };
  const pad = width - g;
  const map = new Int32Array(3 + allStarts.length);
  map[0] = allStarts.length;
  map[1] = width;
  const parts: string[] = [];
  for (let l = 0; l < allStarts.length; l++) {
    map[3 + l] = allStarts[l]!;
    parts.push(text.slice(allStarts[l], allEnds[l]));
  }
  // The map's first line starts `pad` characters before the glued one's (WrappedRun.pad).
  map[3] = glued - pad;
  const chars = parts.join("");
  map[2] = chars.length;
  if (chars.length < MIN_BASE64_RUN) return { end: blockEnd, decoded: false, starts: allStarts, ends: allEnds };
  const decoded = decodeBase64Run(chars, 0, chars.length, chars.length, budget, undefined);
  if (typeof decoded !== "object") return { end: blockEnd, decoded: false, starts: allStarts, ends: allEnds };
  runs.push(new WrappedRun(glued, blockEnd, decoded, map, pad));
  return { end: blockEnd, decoded: true, starts: allStarts, ends: allEnds };
}

/**
 * The first base64 character of the line starting at `at` after its lead (up to {@link MAX_LEAD}
 * {@link isLeadChar} characters; lead characters that are base64 characters and touch the base64
 * belong to it, as the run search reads them), or −1 when the lead is followed by something else.
 */
function lineRunStart(text: string, at: number): number {
  let k = at;
  while (k < text.length && k - at < MAX_LEAD && isLeadChar(text.charCodeAt(k))) k++;
  let s = k;
  while (s > at && isB64(text, s - 1)) s--;
  return s < text.length && isB64(text, s) ? s : -1;
}

/**
 * The block that starts with the glued first line `text[glued, gluedEnd)` (base64 ending its line,
 * no padding, after other text on its line: try18 F1), read and decoded by
 * {@link readBlock} from the next line; undefined when that line holds no base64 after a lead or
 * the block does not decode (then nothing was pushed: the caller reads the lines as before).
 */
function readGluedBlock(text: string, glued: number, gluedEnd: number, budget: DecodeBudget, runs: DecodedRuns): ReadBlock | undefined {
  if (text.charCodeAt(gluedEnd) === 61 /* = */) return undefined;
  const next = lineEndAfterTail(text, gluedEnd)[1];
  if (next === -1 || next >= text.length) return undefined;
  const s = lineRunStart(text, next);
  if (s < 0) return undefined;
  const block = readBlock(text, s, base64RunEnd(text, s), next, budget, runs, glued, gluedEnd);
  return block.decoded ? block : undefined;
}

/** Wrapped blocks up to this many base64 characters are decoded into the pool when they are ASCII text (see {@link SHORT_RUN}). */
const SHORT_BLOCK = 1024;

/** What {@link readBlock} read: its end, whether it was decoded, and its lines' base64 characters (`[starts[l], ends[l])`). */
interface ReadBlock {
  readonly end: number;
  readonly decoded: boolean;
  readonly starts: readonly number[];
  readonly ends: readonly number[];
}

/**
 * The block of line-wrapped base64 holding the run `text[start, charsEnd)` as one of its lines:
 * found by walking back over the lines before it (not before `floor`, where the previous block or
 * run read ended), then read by {@link readBlock}; undefined when the run is not a line of a
 * block of two lines or more. A block read but not decoded is returned too: the caller tries its
 * lines alone and goes on after it (so no line is read again: linear).
 */
function blockAround(text: string, start: number, charsEnd: number, floor: number, budget: DecodeBudget, runs: DecodedRuns): ReadBlock | undefined {
  /** Start of the lead of the run at `s` when the run starts its line (after `floor`), else −1. */
  const leadOf = (s: number): number => {
    const ls = leadStart(text, s, floor);
    return ls === 0 || (ls > floor && text.charCodeAt(ls - 1) === 10) ? ls : -1;
  };
  const lead = leadOf(start);
  if (lead < 0) {
    // The run ends its line after other text: a glued first line (try18 F1)? (A whole line whose
    // lead differs from the next line's is not joined to it.)
    return start === 0 || !isB64(text, start - 1) ? readGluedBlock(text, start, charsEnd, budget, runs) : undefined;
  }
  const indent = start - lead;
  if (lineEndAfterTail(text, paddingEnd(text, charsEnd))[0] === -1) return undefined;
  // Walk back: lines of one width W >= MIN_WRAP_WIDTH, each W >= the run's own (a last line may be shorter).
  let first = start;
  let width = -1;
  for (;;) {
    const lineStart = first - indent;
    if (lineStart <= floor + 1 || lineStart === 0) break;
    let prevEnd = lineStart - 1; // the LF
    if (prevEnd > floor && text.charCodeAt(prevEnd - 1) === 13) prevEnd--;
    for (let t = 0; t < MAX_TAIL && prevEnd > floor && isTailChar(text.charCodeAt(prevEnd - 1)); t++) prevEnd--;
    let ps = prevEnd;
    while (ps > floor && isB64(text, ps - 1)) ps--;
    const w = prevEnd - ps;
    if (w < MIN_WRAP_WIDTH || (width >= 0 && w !== width) || w < charsEnd - start || leadOf(ps) !== ps - indent || !sameCodeUnits(text, ps - indent, lead, indent)) break;
    width = w;
    first = ps;
  }
  // The line before the block's first: base64 ending it after other text (try18 F1)?
  const glued = first - indent > floor + 1 ? runEndingLineBefore(text, first - indent, floor, Infinity) : undefined;
  if (glued !== undefined) {
    const block = readBlock(text, first, first === start ? charsEnd : base64RunEnd(text, first), first - indent, budget, runs, glued[0], glued[1]);
    if (block.decoded && block.end >= charsEnd) return block;
  }
  if (first === start && charsEnd - start < MIN_WRAP_WIDTH) return undefined;
  const block = readBlock(text, first, first === start ? charsEnd : base64RunEnd(text, first), first - indent, budget, runs);
  return block.starts.length >= 2 && block.end >= charsEnd ? block : undefined;
}

/**
 * The base64 run that ends the line before the line starting at `lineStart` (before its tail and
 * line end), as `[start, end]`, when it is a whole run (nothing of it before `floor`), at most
 * `longest` characters and not padded; else undefined.
 */
function runEndingLineBefore(text: string, lineStart: number, floor: number, longest: number): [number, number] | undefined {
  if (lineStart < 1 || text.charCodeAt(lineStart - 1) !== 10) return undefined;
  let e = lineStart - 1;
  if (e > floor && text.charCodeAt(e - 1) === 13) e--;
  for (let t = 0; t < MAX_TAIL && e > floor && isTailChar(text.charCodeAt(e - 1)); t++) e--;
  let s = e;
  while (s > floor && e - s < longest && isB64(text, s - 1)) s--;
  if (s === e || (s > 0 && isB64(text, s - 1))) return undefined;
  // Other text before it on its line (a run that starts its line after a lead is not glued).
  const ls = leadStart(text, s, 0);
  return ls > 0 && text.charCodeAt(ls - 1) !== 10 ? [s, e] : undefined;
}

/** Do the first 8 characters at `start` (a run of at least {@link MIN_BASE64_RUN}) decode to 6 bytes of ASCII text? No allocation. */
function asciiTextHead(text: string, start: number): boolean {
  for (let q = start; q < start + 8; q += 4) {
    const v = (B64[text.charCodeAt(q)]! << 18) | (B64[text.charCodeAt(q + 1)]! << 12) | (B64[text.charCodeAt(q + 2)]! << 6) | B64[text.charCodeAt(q + 3)]!;
    if (!isAsciiTextByte(v >> 16) || !isAsciiTextByte((v >> 8) & 0xff) || !isAsciiTextByte(v & 0xff)) return false;
  }
  return true;
}

/** Runs up to this many characters are decoded in JavaScript (cheaper than a Buffer round trip when runs are many and short). */
const SHORT_RUN = 128;

/**
 * Decoded bytes of the short ASCII runs and blocks of one {@link decodedRuns} call, each followed
 * by LF, so that consecutive runs are one latin1 slice ({@link DecodedRuns.joined}): no string per run.
 */
interface BytePool {
  bytes: Buffer;
  /** Bytes of the runs added ({@link DecodedRuns.addShort}); the run being decoded starts here. */
  used: number;
  /** Bytes the pool's text can add at most (its first allocation: {@link beginPoolRun}). */
  readonly capacity: number;
  /** The run being decoded: its byte count so far, whether it held `-` or `_` (base64url), and the bits not yet a byte. */
  last: number;
  url: boolean;
  acc: number;
  bits: number;
}

/** What {@link decodeBase64Run} returns for a short ASCII run: its bytes are in the pool, at `pool.used` (`pool.last` of them). */
const SHORT = 1;

/**
 * Starts a run in `pool` at `pool.used` with room for `maxBytes` bytes and its LF. The first
 * allocation is the pool's `capacity` (an upper bound of what the text can fill), so that a text of
 * many runs is not copied at each doubling: on the bench machine writing fresh memory (page faults)
 * cost as much as the decoding, and untouched pages of an allocation cost nothing.
 */
function beginPoolRun(pool: BytePool, maxBytes: number): void {
  if (pool.bytes.length < pool.used + maxBytes + 1) {
    const grown = Buffer.allocUnsafe(Math.max(4096, pool.bytes.length === 0 ? pool.capacity : 2 * pool.bytes.length, pool.used + maxBytes + 1));
    pool.bytes.copy(grown, 0, 0, pool.used);
    pool.bytes = grown;
  }
  pool.last = 0;
  pool.url = false;
  pool.acc = 0;
  pool.bits = 0;
}

/**
 * Decodes the base64 characters `text[start, end)` onto the end of the pool's current run (a
 * block's lines one after the other: the bits left at a line's end carry over); false when a byte
 * is not printable ASCII, tab, LF or CR (then the general path decides: it may be UTF-8).
 */
function appendAscii(text: string, start: number, end: number, pool: BytePool): boolean {
  const bytes = pool.bytes;
  let n = pool.used + pool.last;
  let acc = pool.acc;
  let bits = pool.bits;
  let url = pool.url;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 45 || c === 95) url = true; // - or _
    acc = ((acc << 6) | B64[c]!) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      const b = (acc >> bits) & 0xff;
      if (!isAsciiTextByte(b)) return false;
      bytes[n++] = b;
    }
  }
  pool.last = n - pool.used;
  pool.acc = acc;
  pool.bits = bits;
  pool.url = url;
  return true;
}

/** What {@link decodeBase64Run} returns for a run that does not decode to text. */
const NOT_TEXT_RUN = 2;

/**
 * The run `text[start, end)` (base64 characters up to `charsEnd`, then padding) decoded, if it
 * decodes to text ({@link NOT_TEXT_RUN} if not) and fits the budget (undefined if not).
 */
function decodeBase64Run(
  text: string,
  start: number,
  charsEnd: number,
  end: number,
  budget: DecodeBudget,
  pool: BytePool | undefined,
): Base64Run | typeof SHORT | typeof NOT_TEXT_RUN | undefined {
  // Cheap refusal first: random data, hashes and ordinary long words give a non-text byte early.
  if (!asciiTextHead(text, start)) {
    const order = utf16TextHead(text, start);
    return order === NOT_UTF16 ? NOT_TEXT_RUN : decodeUtf16Run(text, start, charsEnd, end, budget, order);
  }
  const size = Math.floor(((charsEnd - start) * 3) / 4);
  if (size > budget.remaining) return undefined;
  if (pool !== undefined && charsEnd - start <= SHORT_RUN) {
    beginPoolRun(pool, size);
    if (appendAscii(text, start, charsEnd, pool)) {
      budget.remaining -= pool.last;
      return SHORT;
    }
  }
  let decoded: string;
  let byteCount: number;
  let url: boolean;
  {
    // Node's base64 decoder reads both alphabets (RFC 4648 §4 and §5) natively.
    const chars = text.slice(start, charsEnd);
    url = chars.includes("-") || chars.includes("_"); // native search: the run may be megabytes
    const bytes = Buffer.from(chars, "base64");
    const latin1 = bytes.toString("latin1");
    if (!NOT_ASCII_TEXT.test(latin1)) decoded = latin1; // ASCII text: no UTF-8 decoding (a run may be megabytes)
    else {
      if (NOT_TEXT.test(latin1)) return NOT_TEXT_RUN;
      decoded = bytes.toString("utf8");
      // Not UTF-8 text: a byte above 0x7F that is no part of a sequence decodes to U+FFFD. (When
      // every such byte is one, the lengths are equal: a sequence is 2 to 4 bytes, 1 or 2 code units.)
      if (decoded.length === bytes.length || decoded.includes("\ufffd")) return NOT_TEXT_RUN;
    }
    byteCount = bytes.length;
  }
  budget.remaining -= decoded.length;
  return new Base64Run(start, end, url ? "base64url" : "base64", decoded, decoded.length === byteCount ? ASCII : UTF8);
}

/** Byte order of UTF-16 text ({@link utf16TextHead}): none (not UTF-16 text), little-endian, big-endian. */
type Utf16Order = 0 | 1 | 2;
const NOT_UTF16: Utf16Order = 0;
const UTF16LE: Utf16Order = 1;
const UTF16BE: Utf16Order = 2;

/**
 * Do the first 8 characters at `start` (a run of at least {@link MIN_BASE64_RUN}) decode to 3 code
 * units of UTF-16 ASCII text, or to a byte order mark and 2 such units? Little-endian (each an
 * ASCII text byte, then 0; BOM FF FE: what PowerShell's `-EncodedCommand` takes and
 * `[Convert]::ToBase64String([Text.Encoding]::Unicode.GetBytes(…))` writes) or big-endian (0, then
 * the byte; BOM FE FF: Java's `getBytes(StandardCharsets.UTF_16)`, `iconv -t UTF-16BE`,
 * .NET's `BigEndianUnicode`; issue 10). No allocation.
 */
function utf16TextHead(text: string, start: number): Utf16Order {
  const v = (B64[text.charCodeAt(start)]! << 18) | (B64[text.charCodeAt(start + 1)]! << 12) | (B64[text.charCodeAt(start + 2)]! << 6) | B64[text.charCodeAt(start + 3)]!;
  const w = (B64[text.charCodeAt(start + 4)]! << 18) | (B64[text.charCodeAt(start + 5)]! << 12) | (B64[text.charCodeAt(start + 6)]! << 6) | B64[text.charCodeAt(start + 7)]!;
  // Bytes b0 b1 b2 | b3 b4 b5: units (b0, b1), (b2, b3), (b4, b5).
  const b0 = v >> 16;
  const b1 = (v >> 8) & 0xff;
  const b2 = v & 0xff;
  const b3 = w >> 16;
  const b4 = (w >> 8) & 0xff;
  const b5 = w & 0xff;
  if (b3 === 0 && b5 === 0 && isAsciiTextByte(b2) && isAsciiTextByte(b4) && ((b0 === 0xff && b1 === 0xfe) || (b1 === 0 && isAsciiTextByte(b0)))) return UTF16LE;
  if (b2 === 0 && b4 === 0 && isAsciiTextByte(b3) && isAsciiTextByte(b5) && ((b0 === 0xfe && b1 === 0xff) || (b0 === 0 && isAsciiTextByte(b1)))) return UTF16BE;
  return NOT_UTF16;
}

/**
 * A code unit that is not UTF-16 text: a C0 control other than tab, LF, CR; DEL and the C1
 * controls; U+FFFE, U+FFFF; a surrogate not in a pair.
 */
// eslint-disable-next-line no-control-regex -- control characters are exactly what this looks for
const NOT_UTF16_TEXT = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * The run `text[start, end)` (base64 characters up to `charsEnd`, then padding) decoded as UTF-16
 * text of byte `order` ({@link utf16TextHead} said its head is; an odd last byte is left out), or
 * {@link NOT_TEXT_RUN} when a code unit is not text ({@link NOT_UTF16_TEXT}), undefined over budget.
 */
function decodeUtf16Run(text: string, start: number, charsEnd: number, end: number, budget: DecodeBudget, order: Utf16Order): Base64Run | typeof NOT_TEXT_RUN | undefined {
  const size = Math.floor(((charsEnd - start) * 3) / 8);
  if (size > budget.remaining) return undefined;
  const chars = text.slice(start, charsEnd);
  const whole = Buffer.from(chars, "base64");
  const bytes = whole.subarray(0, whole.length & ~1);
  if (order === UTF16BE) bytes.swap16();
  const decoded = bytes.toString("utf16le");
  if (NOT_UTF16_TEXT.test(decoded)) return NOT_TEXT_RUN;
  budget.remaining -= decoded.length;
  const url = chars.includes("-") || chars.includes("_");
  const encoding = order === UTF16BE ? (url ? "base64url-utf16be" : "base64-utf16be") : url ? "base64url-utf16le" : "base64-utf16le";
  return new Base64Run(start, end, encoding, decoded, UTF16);
}

/**
 * Case of each hex digit: {@link HEX_LOWER} for `a`-`f`, {@link HEX_UPPER} for `A`-`F`, both for
 * `0`-`9`, 0 for every other code unit (one lookup, no range check).
 */
const HEX_CASE = new Uint8Array(65536);
const HEX_LOWER = 1;
const HEX_UPPER = 2;
for (let c = 48; c <= 57; c++) HEX_CASE[c] = HEX_LOWER | HEX_UPPER;
for (let c = 97; c <= 102; c++) HEX_CASE[c] = HEX_LOWER;
for (let c = 65; c <= 70; c++) HEX_CASE[c] = HEX_UPPER;

/**
 * The cases `text[from, to)` is written in: {@link HEX_LOWER} | {@link HEX_UPPER} for digits only,
 * one of them for hex digits of one case (with digits), 0 when a code unit is not a hex digit or the
 * cases are mixed (`6768705F`). `cases`: what the code units before allowed (a block's earlier lines).
 */
function hexCases(text: string, from: number, to: number, cases: number): number {
  for (let i = from; i < to && cases !== 0; i++) cases &= HEX_CASE[text.charCodeAt(i)]!;
  return cases;
}

/** Do the 3 bytes whose hex starts at `text[at]` (hex digits) make ASCII text? A cheap refusal of hashes and ids. */
function asciiHexHead(text: string, at: number): boolean {
  for (let k = at; k < at + 6; k += 2) {
    const hi = text.charCodeAt(k);
    // The first digit of an ASCII text byte is 0 (tab, LF, CR) or 2-7.
    if (hi === 48) {
      const lo = text.charCodeAt(k + 1);
      if (lo !== 57 /* 9 */ && lo !== 97 && lo !== 65 /* a */ && lo !== 100 && lo !== 68 /* d */) return false;
    } else if (hi < 50 || hi > 55) return false;
  }
  return true;
}

/**
 * `bytes` as text: latin1 when they are all ASCII text, else UTF-8 when they are UTF-8 text without
 * control characters other than tab, LF, CR; undefined when they are not text (as for base64 runs).
 */
function bytesAsText(bytes: Buffer): string | undefined {
  const latin1 = bytes.toString("latin1");
  if (!NOT_ASCII_TEXT.test(latin1)) return latin1;
  if (NOT_TEXT.test(latin1)) return undefined;
  const decoded = bytes.toString("utf8");
  return decoded.length === bytes.length || decoded.includes("\ufffd") ? undefined : decoded;
}

/**
 * The run of base64 characters `text[start, charsEnd)` decoded as hex, when it is one: an optional
 * `0x` or `0X`, then an even number (at least {@link MIN_BASE64_RUN}) of hex digits of one case
 * (`xxd -p`, `od`, Python's `.hex()`, Go's `hex.EncodeToString`, Java's `HexFormat`; mixed case is
 * no encoder's output), whose bytes are text ({@link bytesAsText}). Undefined otherwise, and when it
 * does not fit `budget`. Hashes and ids are refused at their first 3 bytes ({@link asciiHexHead}).
 */
function decodeHexRun(text: string, start: number, charsEnd: number, budget: DecodeBudget): HexRun | undefined {
  const digits = text.charCodeAt(start) === 48 && (text.charCodeAt(start + 1) | 32) === 120 /* x */ ? start + 2 : start;
  const length = charsEnd - digits;
  if (length >= MIN_DER_DIGITS && length % 2 === 0 && derHexHead(text, digits) && hexCases(text, digits, charsEnd, HEX_LOWER | HEX_UPPER) !== 0) {
    if ((length / 4) * 3 > budget.remaining) return undefined;
    const decoded = Buffer.from(text.slice(digits, charsEnd), "hex").toString("base64") + DER_END;
    budget.remaining -= decoded.length;
    return new HexRun(start, charsEnd, decoded, true, digits, undefined, true);
  }
  if (length < MIN_BASE64_RUN || length % 2 !== 0 || !asciiHexHead(text, digits) || !hexText(text, digits, charsEnd)) return undefined;
  if (length / 2 > budget.remaining) return undefined;
  const decoded = bytesAsText(Buffer.from(text.slice(digits, charsEnd), "hex"));
  if (decoded === undefined) return undefined;
  budget.remaining -= decoded.length;
  return new HexRun(start, charsEnd, decoded, decoded.length === length / 2, digits, undefined);
}

/**
 * Appended to a DER key's base64 ({@link derHexHead}): ends its body, which the next run, joined
 * after an LF, would otherwise continue as a next line (a PKCS#8 Ed25519 body is 64 characters,
 * all `pkcs-unarmored-private-key` reads: read on into the next run, its match was dropped).
 */
const DER_END = ".";

/** Fewest hex digits read as a DER private key: 48 bytes, the smallest (PKCS#8 Ed25519) whole. */
const MIN_DER_DIGITS = 96;

/**
 * Do the hex digits at `at` start a DER private key: a SEQUENCE (`30`, its length in one byte below
 * 0x80, `81 LL` or `82 LL LL`) whose first element is INTEGER version 0 or 1 (`02 01 00`, `02 01 01`)?
 * (`pkcs-unarmored-private-key` checks the rest on the base64 it becomes.)
 */
function derHexHead(text: string, at: number): boolean {
  if (text.charCodeAt(at) !== 51 || text.charCodeAt(at + 1) !== 48) return false; // 30
  const hi = text.charCodeAt(at + 2);
  const lo = text.charCodeAt(at + 3) | 32;
  let v = at + 4;
  if (hi === 56 /* 8 */ && lo === 50 /* 2 */) v += 4;
  else if (hi === 56 && lo === 49 /* 1 */) v += 2;
  else if (hi < 48 || hi > 55) return false;
  if (!HEX_CASE[text.charCodeAt(at + 2)] || !HEX_CASE[text.charCodeAt(at + 3)]) return false;
  return text.startsWith("02010", v) && (text.charCodeAt(v + 5) === 48 || text.charCodeAt(v + 5) === 49);
}

/**
 * Are `text[from, to)` (an even count) hex digits of one case whose bytes hold no control character
 * but tab, LF, CR? Reads pair by pair and stops at the first refusal, allocating nothing: a run that
 * starts with a gate and goes on with binary costs a few pairs ({@link bytesAsText} decides on
 * bytes above 0x7F).
 */
function hexText(text: string, from: number, to: number): boolean {
  let cases = HEX_LOWER | HEX_UPPER;
  for (let i = from; i < to; i += 2) {
    const hi = text.charCodeAt(i);
    const lo = text.charCodeAt(i + 1);
    cases &= HEX_CASE[hi]! & HEX_CASE[lo]!;
    if (cases === 0) return false;
    // A byte below 0x20 other than tab, LF, CR, or 0x7F: the high digit is 0 or 1 (or 7, then F).
    if (hi <= 49 /* 0, 1 */ ? hi === 49 || (lo !== 57 && lo !== 97 && lo !== 65 && lo !== 100 && lo !== 68) : hi === 55 && (lo | 32) === 102) return false;
  }
  return true;
}

/**
 * The wrapped block whose lines' characters are `text[starts[l], ends[l])` (every line but the last
 * `width` long, `total` characters in all; lines of `xxd -p` are 60 digits) decoded as hex, when
 * every line is hex digits of one case (the same in all lines), `total` is even and the bytes are
 * text; else undefined.
 */
function decodeHexBlock(text: string, starts: readonly number[], ends: readonly number[], width: number, total: number, start: number, end: number, budget: DecodeBudget): HexRun | undefined {
  const der = total >= MIN_DER_DIGITS && derHexHead(text, start);
  if (total % 2 !== 0 || width % 2 !== 0 || (!der && !asciiHexHead(text, start))) return undefined;
  let cases = HEX_LOWER | HEX_UPPER;
  for (let l = 0; l < starts.length && cases !== 0; l++) cases = hexCases(text, starts[l]!, ends[l]!, cases);
  if (cases === 0 || total / 2 > budget.remaining) return undefined;
  const map = new Int32Array(3 + starts.length);
  map[0] = starts.length;
  map[1] = width;
  map[2] = total;
  const parts: string[] = [];
  for (let l = 0; l < starts.length; l++) {
    map[3 + l] = starts[l]!;
    parts.push(text.slice(starts[l], ends[l]));
  }
  const bytes = Buffer.from(parts.join(""), "hex");
  // A DER private key (`openssl pkey -outform DER | xxd -p`; try18 F2): scanned as its base64.
  const decoded = der ? bytes.toString("base64") + DER_END : bytesAsText(bytes);
  if (decoded === undefined) return undefined;
  budget.remaining -= decoded.length;
  return new HexRun(start, end, decoded, der || decoded.length === total / 2, start, map, der);
}

/** A run of hex digits decoded ({@link decodeHexRun}, {@link decodeHexBlock}): 2 digits per byte. */
class HexRun implements DecodedRun {
  readonly encoding = "hex";

  constructor(
    readonly start: number,
    readonly end: number,
    readonly text: string,
    private readonly ascii: boolean,
    /** Offset of the first digit (after a `0x`). */
    private readonly digits: number,
    /** The block's {@link LineMap} (at offset 0) when the digits are wrapped. */
    private readonly lines: Int32Array | undefined,
    /** The bytes are a DER key and `text` is their base64 (4 characters per 3 bytes). */
    private readonly der = false,
  ) {}

  private byteOffset(i: number, end: boolean): number {
    if (this.der) return Math.min((end ? Math.ceil : Math.floor)((i * 3) / 4), Math.floor(((this.text.length - DER_END.length) * 3) / 4));
    return this.ascii ? i : Buffer.byteLength(this.text.slice(0, i), "utf8");
  }

  // The digits of the span's bytes, so the finding starts at the token's first digit and its
  // redaction removes every one of the token's.
  toOriginal(s: number, e: number): [number, number] {
    const a = 2 * this.byteOffset(s, false);
    const b = 2 * this.byteOffset(e, true);
    if (this.lines === undefined) return [this.digits + a, this.digits + b];
    return [wrappedOffset(this.lines, 0, a, false), wrappedOffset(this.lines, 0, b, true)];
  }
}

/** How a {@link Base64Run}'s bytes make its text: {@link ASCII} one per code unit, UTF-8, or {@link UTF16} (LE or BE) two per code unit. */
type RunBytes = 0 | 1 | 2;
const UTF8: RunBytes = 0;
const ASCII: RunBytes = 1;
const UTF16: RunBytes = 2;

/** A decoded base64 run (a class: no closures per run, as runs can be one per 25 characters). */
class Base64Run implements DecodedRun {
  constructor(
    readonly start: number,
    readonly end: number,
    readonly encoding: string,
    readonly text: string,
    private readonly bytes: RunBytes,
  ) {}

  /** Decoded bytes before decoded offset `i`. */
  private byteOffset(i: number): number {
    return this.bytes === UTF8 ? Buffer.byteLength(this.text.slice(0, i), "utf8") : this.bytes * i;
  }

  /** Is the run UTF-16LE text (no cuts are tried after it: engine/realign.ts reads bytes as ASCII)? */
  get utf16(): boolean {
    return this.bytes === UTF16;
  }

  // A decoded span maps to the whole 4-character groups holding its bytes (3 bytes per group), so the
  // reported span starts at a group a reader can decode and its redaction removes every bit of the value.
  toOriginal(s: number, e: number): [number, number] {
    return [this.start + Math.floor(this.byteOffset(s) / 3) * 4, Math.min(this.end, this.start + Math.ceil(this.byteOffset(e) / 3) * 4)];
  }
}

/** The initial (empty, never written) storage of a {@link DecodedRuns}: replaced when the first run is added. */
const NO_BYTES = Buffer.alloc(0);
const NO_RUNS = new Int32Array(0);

/** Largest first allocation of a pool (bytes): beyond it, it doubles as it fills. */
const MAX_FIRST_POOL = 64 * 1024 * 1024;

/** Numbers per run in {@link DecodedRuns}' table. */
const FIELDS = 6;

/**
 * The runs found by {@link decodedRuns}, in order. Short ASCII base64 runs and wrapped blocks (the
 * common kinds, and the ones an input can hold one per 25 or 126 characters) are not objects:
 * their spans sit in a number table and their bytes in one pool, each followed by LF, so that
 * consecutive ones are one latin1 slice of {@link DecodedRuns.joined}; a run object per run was
 * measured at a third of the scan of such input (allocation, and the young-generation GC copying
 * them all).
 */
export class DecodedRuns {
  // Nothing is allocated before the first run (most texts have none: a Buffer, an Int32Array and a
  // Map per scan were measured at ~3 % of a Markdown scan, file by file); the pool grows on first use.
  readonly pool: BytePool;
  /**
   * Per run, {@link FIELDS} numbers: start, end, source (pool offset, or −1 − index into `objects`),
   * decoded length × 2 + (base64url ? 1 : 0), offset in {@link DecodedRuns.joined}, and for a
   * wrapped block in the pool the offset of its {@link LineMap} in `lineMaps` (else −1).
   */
  private data = NO_RUNS;
  private n = 0;
  private objects: DecodedRun[] | undefined;
  /** The {@link LineMap}s of the wrapped blocks in the pool, one after the other (`lineMapsUsed` numbers). */
  private lineMaps = NO_RUNS;
  private lineMapsUsed = 0;

  /** `textLength`: the length of the text the runs are found in (it bounds the pool's size). */
  constructor(textLength: number) {
    // 3 bytes per 4 base64 characters and an LF per run (runs are at least 24 characters long: 0.8
    // per code unit at most). The cuts (engine/realign.ts) add up to an eighth of that plus CUT_ALLOWANCE, and an empty
    // separator run (one LF) each: a pool sized for the runs alone was copied once at its end.
    const capacity = Math.min(textLength + 2 * CUT_ALLOWANCE + 64, MAX_FIRST_POOL);
    this.pool = { bytes: NO_BYTES, used: 0, capacity, last: 0, url: false, acc: 0, bits: 0 };
  }

  get count(): number {
    return this.n;
  }

  private add(start: number, end: number, source: number, length: number, url: boolean, lines: number): void {
    if (this.data.length < FIELDS * (this.n + 1)) {
      const grown = new Int32Array(Math.max(FIELDS * 64, 2 * this.data.length));
      grown.set(this.data);
      this.data = grown;
    }
    const d = this.data;
    const k = FIELDS * this.n++;
    d[k] = start;
    d[k + 1] = end;
    d[k + 2] = source;
    d[k + 3] = length * 2 + (url ? 1 : 0);
    d[k + 4] = k === 0 ? 0 : d[k - FIELDS + 4]! + (d[k - FIELDS + 3]! >> 1) + 1;
    d[k + 5] = lines;
  }

  push(run: DecodedRun): void {
    const objects = (this.objects ??= []);
    this.add(run.start, run.end, -1 - objects.length, run.text.length, false, -1);
    objects.push(run);
  }

  private object(i: number): DecodedRun {
    return this.objects![-1 - this.data[FIELDS * i + 2]!]!;
  }

  /**
   * The short ASCII run `[start, end)` just decoded into the pool ({@link SHORT}); with `starts`,
   * a wrapped block whose lines start there, `width` and `chars` its {@link LineMap}'s.
   */
  addShort(start: number, end: number, starts?: readonly number[], width = 0, chars = 0): void {
    const pool = this.pool;
    let lines = -1;
    if (starts !== undefined) {
      lines = this.lineMapsUsed;
      const size = lines + 3 + starts.length;
      if (this.lineMaps.length < size) {
        const grown = new Int32Array(Math.max(1024, 2 * size));
        grown.set(this.lineMaps);
        this.lineMaps = grown;
      }
      const map = this.lineMaps;
      map[lines] = starts.length;
      map[lines + 1] = width;
      map[lines + 2] = chars;
      for (let l = 0; l < starts.length; l++) map[lines + 3 + l] = starts[l]!;
      this.lineMapsUsed = size;
    }
    this.add(start, end, pool.used, pool.last, pool.url, lines);
    pool.used += pool.last;
    pool.bytes[pool.used++] = 10; // LF: the separator `joined` keeps
  }

  /** Decoded length of run `i`. */
  length(i: number): number {
    return this.data[FIELDS * i + 3]! >> 1;
  }

  /** Offset of run `i`'s decoded text in {@link DecodedRuns.joined}. */
  base(i: number): number {
    return this.data[FIELDS * i + 4]!;
  }

  /** The run whose decoded text holds offset `p` of {@link DecodedRuns.joined} (or the LF after it). Binary search. */
  runAt(p: number): number {
    const d = this.data;
    let lo = 0;
    let hi = this.n - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (d[FIELDS * mid + 4]! <= p) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** Encoding of run `i` ({@link DecodedRun.encoding}). */
  encoding(i: number): string {
    return this.data[FIELDS * i + 2]! < 0 ? this.object(i).encoding : this.data[FIELDS * i + 3]! & 1 ? "base64url" : "base64";
  }

  /** {@link DecodedRun.toOriginal} of run `i`. */
  toOriginal(i: number, s: number, e: number): [number, number] {
    const d = this.data;
    const k = FIELDS * i;
    if (d[k + 2]! < 0) return this.object(i).toOriginal(s, e);
    const start = d[k]!;
    const lines = d[k + 5]!;
    if (lines < 0) return [start + Math.floor(s / 3) * 4, Math.min(d[k + 1]!, start + Math.ceil(e / 3) * 4)];
    // A wrapped block: whole 4-character groups of its joined characters, mapped line by line (WrappedRun).
    const map = this.lineMaps;
    const chars = map[lines + 2]!;
    return [wrappedOffset(map, lines, Math.floor(s / 3) * 4, false), Math.min(d[k + 1]!, wrappedOffset(map, lines, Math.min(chars, Math.ceil(e / 3) * 4), true))];
  }

  /** The runs' decoded texts joined by LF (consecutive runs in the pool are one slice of it). */
  joined(): string {
    const parts: string[] = [];
    const d = this.data;
    const n = this.n;
    let i = 0;
    while (i < n) {
      const off = d[FIELDS * i + 2]!;
      if (off < 0) {
        parts.push(this.object(i).text);
        i++;
        continue;
      }
      let k = i + 1;
      while (k < n && d[FIELDS * k + 2]! >= 0) k++;
      parts.push(this.pool.bytes.toString("latin1", off, d[FIELDS * (k - 1) + 2]! + this.length(k - 1)));
      i = k;
    }
    return parts.length === 1 ? parts[0]! : parts.join("\n");
  }
}

/** Decoded code units between two checkpoints of an {@link EscapeRun}'s offset map: a span is mapped back by decoding again from the checkpoint before it. */
const CHECKPOINT = 256;

/**
 * An escape sequence as one number (no allocation: this runs at every introducer of a run): code
 * point × 1024 + length × 16 + index of its kind in {@link ESCAPE_KINDS} (at most 0x110000 × 1024 < 2³¹: an int32). The code point
 * {@link NOTHING} stands for an escape that decodes to no character (a soft line break).
 */
const escapeCode = (cp: number, len: number, kind: number): number => cp * 1024 + len * 16 + kind;
const escapeCodePoint = (esc: number): number => esc >> 10;
const escapeLength = (esc: number): number => (esc >> 4) & 63;
const escapeKind = (esc: number): number => esc & 15;
/** The "code point" of an escape that decodes to nothing (above U+10FFFF: no character has it). */
const NOTHING = 0x110000;

/** Code units an escape of code point `cp` decodes to (0 for {@link NOTHING}). */
const unitsOf = (cp: number): number => (cp === NOTHING ? 0 : cp > 0xffff ? 2 : 1);

/**
 * The escape sequence of `family` at `text[i]` that {@link decodeEscapes} decodes, ending by `end`
 * ({@link escapeCode}), or −1 when `text[i]` is a plain character. {@link BACKSLASH_PERCENT_HTML}:
 * `%XX` (RFC 3986 §2.1); `\uXXXX` and `\\` (RFC 8259 §7); `\xXX` (C, JavaScript, Python: two hex
 * digits); `\ooo` (C, Python, bash `$'…'` ANSI-C quoting and `printf`: three octal digits, at most
 * `\377`); character references. {@link QUOTED_PRINTABLE} (RFC 2045 §6.7): `=XX` with uppercase hex
 * digits (rule 1: lowercase is not quoted-printable, and `=` then lowercase is common elsewhere) and
 * soft line breaks (`=` LF, `=` CR LF: rule 5).
 */
function escapeAt(text: string, i: number, end: number, family: EscapeFamily): number {
  const c = text.charCodeAt(i);
  if (family === QUOTED_PRINTABLE) {
    if (c !== 61 /* = */) return -1;
    const h = i + 3 <= end ? upperHexValue(text, i + 1) : -1;
    if (h >= 0) return escapeCode(h, 3, QP_KIND);
    const soft = softBreakAt(text, i);
    return soft > 0 && i + soft <= end ? escapeCode(NOTHING, soft, QP_KIND) : -1;
  }
  if (c === 37 /* % */) {
    const h = i + 2 < end ? hexValue(text, i + 1, 2) : -1;
    return h < 0 ? -1 : escapeCode(h, 3, 0);
  }
  if (c === 92 /* \ */) return backslashEscape(text, i, end);
  if (c === 94 /* ^ */) return i + 2 <= end ? caretEscape(text, i) : -1;
  if (c === 38 /* & */) {
    const len = referenceLength(text, i);
    if (len === 0 || i + len > end) return -1;
    const cp = referenceCodePoint(text, i, len);
    return cp < 0 ? -1 : escapeCode(cp, len, 2);
  }
  return -1;
}

/**
 * The backslash escape whose backslash is at `i` ({@link escapeCode}), ending by `end`, or −1. Reads
 * only from `i + 1` on (so {@link introducesTokenEscape} can ask about the escape an escaped
 * backslash makes with what follows it). `\uXXXX` and `\\` (RFC 8259 §7); `\xXX` (C, JavaScript,
 * Python: two hex digits); `\ooo` (C, Python, bash `$'…'`: three octal digits, at most `\377`);
 * `\u{X…}` (ECMAScript 2015 code point escapes, Rust, Swift: 1-6 hex digits in braces);
 * `\UXXXXXXXX` (Python, C: eight hex digits); `\N{NAME}` (Python: a character's Unicode name, in
 * any case; {@link NAMED_CHARACTERS}). A code point above U+10FFFF or a surrogate makes no escape.
 * Reads at most {@link MAX_NAMED_ESCAPE} code units.
 */
function backslashEscape(text: string, i: number, end: number): number {
  const d = text.charCodeAt(i + 1);
  if (d === 10 || d === 13) {
    const len = continuationLength(text, i);
    return len > 0 && i + len <= end ? escapeCode(NOTHING, len, CONTINUATION_KIND) : -1;
  }
  if (d === 117 /* u */) {
    if (text.charCodeAt(i + 2) === 123 /* { */) {
      const len = bracedHexLength(text, i + 3);
      const h = len > 0 && i + len <= end ? hexValue(text, i + 3, len - 4) : -1;
      return isScalarValue(h) ? escapeCode(h, len, CODE_POINT_KIND) : -1;
    }
    const h = i + 6 <= end ? hexValue(text, i + 2, 4) : -1;
    return h < 0 ? -1 : escapeCode(h, 6, 1);
  }
  if (d === 120 /* x */) {
    if (text.charCodeAt(i + 2) === 123 /* { */) {
      // Perl's and Ruby's `\x{5f}`: as `\u{…}`, 1-6 hex digits in braces.
      const len = bracedHexLength(text, i + 3);
      const h = len > 0 && i + len <= end ? hexValue(text, i + 3, len - 4) : -1;
      return isScalarValue(h) ? escapeCode(h, len, HEX_KIND) : -1;
    }
    const h = i + 4 <= end ? hexValue(text, i + 2, 2) : -1;
    return h < 0 ? -1 : escapeCode(h, 4, HEX_KIND);
  }
  // `\e` (bash's `echo -e`, `printf`, Perl, Ruby) only before `[`: else it may be CSS's U+E…
  if (d === 101 /* e */ && text.charCodeAt(i + 2) === 91 /* [ */) return i + 2 <= end ? escapeCode(ESC, 2, ANSI_KIND) : -1;
  if (isHexDigit(d)) {
    const len = cssEscapeLength(text, i);
    const spaced = isCssSpace(text.charCodeAt(i + len - 1));
    const digits = len - 1 - (spaced ? 1 : 0);
    const h = len > 0 && i + len <= end ? hexValue(text, i + 1, digits) : -1;
    if (d <= 51 /* 0-3 */) {
      // Octal first (`\137`, `\033[`), unless CSS's reading is a token character written as CSS
      // writes one: 6 digits (`\00005f`) or a space after them (`\5f `; `\137 ` is octal's `_`).
      const o = i + 4 <= end ? octalValue(text, i + 1) : -1;
      if (o >= 0 && !((digits === 6 || spaced) && isTokenCodePoint(h))) return escapeCode(o, 4, OCTAL_KIND);
    }
    return isScalarValue(h) ? escapeCode(h, len, CSS_KIND) : -1;
  }
  if (d === 85 /* U */) {
    const h = i + 10 <= end ? hexValue(text, i + 2, 8) : -1;
    return isScalarValue(h) ? escapeCode(h, 10, CODE_POINT_KIND) : -1;
  }
  if (d === 78 /* N */) {
    const len = namedEscapeLength(text, i);
    // A slice and a lookup only for a whole `\N{…}` of name characters: prose refuses at `\N`.
    const cp = len > 0 && i + len <= end ? NAMED_CHARACTERS.get(text.slice(i + 3, i + len - 1).toUpperCase()) : undefined;
    return cp === undefined ? -1 : escapeCode(cp, len, NAMED_KIND);
  }
  return d === 92 && i + 2 <= end ? escapeCode(92, 2, 1) : -1; // JSON's escaped backslash: JSON inside JSON writes \\u005f
}

/** ESC (U+001B): an escape of it followed by the rest of an ANSI sequence ({@link escapedAnsiFollows}) starts a run. */
const ESC = 0x1b;

/** The whitespace that ends a CSS escape and belongs to it: a space or a tab (a line break is not read: a word ends there). */
const isCssSpace = (c: number): boolean => c === 32 || c === 9;

/**
 * Length of the CSS escape whose backslash is at `i` (CSS Syntax Level 3 §4.3.7: `\` + 1-6 hex
 * digits, then one optional space or tab, which belongs to it: `CSS.escape` writes `\5f ` before a
 * hex digit, `\5f` before anything else), or 0. Reads at most 8 code units.
 */
function cssEscapeLength(text: string, i: number): number {
  let k = i + 1;
  while (k - i <= 6 && isHexDigit(text.charCodeAt(k))) k++;
  if (k === i + 1) return 0;
  return isCssSpace(text.charCodeAt(k)) ? k + 1 - i : k - i;
}

/**
 * Does the rest of an ANSI CSI sequence start at `at`: `[`, up to 16 parameter bytes (digits and
 * `;`), a final letter (`[31m`, `[0m`, `[1;32m`, `[2K`)? After an escaped ESC (`\x1b`, `\033`,
 * `\u001b`, `\e`, `^[`), such a sequence is a terminal colour code written as text (a bash
 * snippet's `echo -e "\e[1m…"`): decoded, normalisation removes it (engine/normalize.ts), so a
 * token it splits, or glues a letter to, is whole again. Reads at most 18 code units.
 */
function escapedAnsiFollows(text: string, at: number): boolean {
  if (text.charCodeAt(at) !== 91 /* [ */) return false;
  let k = at + 1;
  while (k - at <= 16 && (isDigit(text.charCodeAt(k)) || text.charCodeAt(k) === 59)) k++;
  return isAsciiLetter(text.charCodeAt(k));
}

/** Is `cp` a Unicode scalar value (0 to U+10FFFF, not a surrogate)? False for −1. */
const isScalarValue = (cp: number): boolean => cp >= 0 && cp <= 0x10ffff && (cp < 0xd800 || cp > 0xdfff);

/** Length of the whole `\u{…}` (1-6 hex digits) whose hex digits start at `from`, else 0. Reads at most 7 code units. */
function bracedHexLength(text: string, from: number): number {
  let i = from;
  while (i - from < 6 && isHexDigit(text.charCodeAt(i))) i++;
  return i > from && text.charCodeAt(i) === 125 /* } */ ? i + 1 - from + 3 : 0;
}

/** Longest `\N{…}` read, in code units: `\N{`, the longest name of {@link NAMED_CHARACTERS} (22), `}`. */
const MAX_NAMED_ESCAPE = 26;

/**
 * Length of the `\N{` + name (ASCII letters, digits, spaces, `-`) + `}` whose backslash is at `i`
 * when it is at most {@link MAX_NAMED_ESCAPE} long, else 0. Reads only from `i + 1` on.
 */
function namedEscapeLength(text: string, i: number): number {
  if (text.charCodeAt(i + 1) !== 78 /* N */ || text.charCodeAt(i + 2) !== 123 /* { */) return 0;
  for (let k = i + 3; k - i < MAX_NAMED_ESCAPE; k++) {
    const c = text.charCodeAt(k);
    if (c === 125 /* } */) return k > i + 3 ? k + 1 - i : 0;
    if (!isAlphanumeric(c) && c !== 32 && c !== 45 /* - */) return 0;
  }
  return 0;
}

/**
 * The Unicode names (uppercase) of the printable ASCII characters, which Python's `\N{…}` reads in
 * any case (`\N{low line}` is `_`), with their code points: `LOW LINE`, `HYPHEN-MINUS`, `FULL STOP`,
 * `SOLIDUS`, `COLON`, `DIGIT ZERO`…, `LATIN CAPITAL LETTER A`…, `LATIN SMALL LETTER A`… (Unicode
 * Character Database, UnicodeData.txt). Other names are not decoded.
 */
const NAMED_CHARACTERS: ReadonlyMap<string, number> = (() => {
  const names = new Map<string, number>();
  const punctuation: [string, string][] = [
    [" ", "SPACE"], ["!", "EXCLAMATION MARK"], ['"', "QUOTATION MARK"], ["#", "NUMBER SIGN"], ["$", "DOLLAR SIGN"],
    ["%", "PERCENT SIGN"], ["&", "AMPERSAND"], ["'", "APOSTROPHE"], ["(", "LEFT PARENTHESIS"], [")", "RIGHT PARENTHESIS"],
    ["*", "ASTERISK"], ["+", "PLUS SIGN"], [",", "COMMA"], ["-", "HYPHEN-MINUS"], [".", "FULL STOP"], ["/", "SOLIDUS"],
    [":", "COLON"], [";", "SEMICOLON"], ["<", "LESS-THAN SIGN"], ["=", "EQUALS SIGN"], [">", "GREATER-THAN SIGN"],
    ["?", "QUESTION MARK"], ["@", "COMMERCIAL AT"], ["[", "LEFT SQUARE BRACKET"], ["\\", "REVERSE SOLIDUS"],
    ["]", "RIGHT SQUARE BRACKET"], ["^", "CIRCUMFLEX ACCENT"], ["_", "LOW LINE"], ["`", "GRAVE ACCENT"],
    ["{", "LEFT CURLY BRACKET"], ["|", "VERTICAL LINE"], ["}", "RIGHT CURLY BRACKET"], ["~", "TILDE"],
  ];
  for (const [ch, name] of punctuation) names.set(name, ch.charCodeAt(0));
  ["ZERO", "ONE", "TWO", "THREE", "FOUR", "FIVE", "SIX", "SEVEN", "EIGHT", "NINE"].forEach((d, k) => names.set(`DIGIT ${d}`, 48 + k));
  for (let k = 0; k < 26; k++) {
    names.set(`LATIN CAPITAL LETTER ${String.fromCharCode(65 + k)}`, 65 + k);
    names.set(`LATIN SMALL LETTER ${String.fromCharCode(65 + k)}`, 97 + k);
  }
  return names;
})();

/** Value of the three octal digits at `from` (`\ooo`, at most 0o377), or −1. */
function octalValue(text: string, from: number): number {
  let v = 0;
  for (let k = 0; k < 3; k++) {
    const d = text.charCodeAt(from + k) - 48;
    if (d < 0 || d > 7) return -1;
    v = v * 8 + d;
  }
  return v <= 0o377 ? v : -1;
}

/** Value of the two uppercase hex digits at `from` (quoted-printable), or −1. */
function upperHexValue(text: string, from: number): number {
  let v = 0;
  for (let k = 0; k < 2; k++) {
    const c = text.charCodeAt(from + k);
    const d = c >= 48 && c <= 57 ? c - 48 : c >= 65 && c <= 70 ? c - 55 : -1;
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

/**
 * An escape word decoded ({@link decodeEscapes}). Offsets are mapped back by decoding again from
 * the last checkpoint before the span (one per {@link CHECKPOINT} decoded code units): an offset
 * table per decoded code unit was 4 bytes of fresh memory per character, on a 5 MB word of escapes
 * as long as the decoding itself.
 */
class EscapeRun implements DecodedRun {
  constructor(
    private readonly source: string,
    readonly start: number,
    readonly end: number,
    readonly encoding: string,
    readonly text: string,
    /** Pairs (decoded offset, offset in `source`), every {@link CHECKPOINT} decoded code units or more, at a source escape's start. */
    private readonly checkpoints: Int32Array,
    private readonly family: EscapeFamily,
  ) {}

  // From the source of decoded code unit `s` to the end of the source of unit `e − 1` (a character
  // reference decoded to a surrogate pair gives two code units of one source; a soft line break
  // none: it is part of the span when a unit on each side of it is).
  toOriginal(s: number, e: number): [number, number] {
    const cps = this.checkpoints;
    let lo = 0;
    let hi = cps.length / 2 - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (cps[2 * mid]! <= s) lo = mid;
      else hi = mid - 1;
    }
    let j = cps[2 * lo]!;
    let i = cps[2 * lo + 1]!;
    let from = -1;
    for (;;) {
      const esc = isIntroducer(this.source.charCodeAt(i), this.family) ? escapeAt(this.source, i, this.end, this.family) : -1;
      const len = esc < 0 ? 1 : escapeLength(esc);
      const units = esc < 0 ? 1 : unitsOf(escapeCodePoint(esc));
      if (from < 0 && j + units > s) from = i;
      if (j + units >= e) return [from, i + len];
      j += units;
      i += len;
    }
  }
}

/**
 * Decodes the escape sequences of `text[start, end)`; undefined when none decodes or over budget.
 * One pass; the decoded text is a one-byte string while every code unit is below 256 (half the
 * memory of a two-byte one).
 */
function decodeEscapes(text: string, start: number, end: number, budget: DecodeBudget, family: EscapeFamily): DecodedRun | undefined {
  if (end - start > budget.remaining) return undefined;
  // A decoded text is never longer than its source (a character reference to a surrogate pair, 2
  // code units, is at least 8 characters long).
  const narrow = Buffer.allocUnsafe(end - start);
  let wide: Uint16Array | undefined;
  /** Code unit `unit` at `j` once it is not one byte: from then on every unit goes to `wide`. */
  const putWide = (j: number, unit: number): void => {
    if (wide === undefined) {
      wide = new Uint16Array(end - start);
      for (let k = 0; k < j; k++) wide[k] = narrow[k]!;
    }
    wide[j] = unit;
  };
  const checkpoints: number[] = [];
  let nextCheckpoint = 0;
  let kinds = 0; // bit set over ESCAPE_KINDS
  let j = 0;
  let i = start;
  while (i < end) {
    if (j >= nextCheckpoint) {
      checkpoints.push(j, i);
      nextCheckpoint = j + CHECKPOINT;
    }
    const c = text.charCodeAt(i);
    const esc = isIntroducer(c, family) ? escapeAt(text, i, end, family) : -1;
    if (esc < 0) {
      // The common case inline (a closure call per code unit was a fifth of a word's decoding).
      if (wide === undefined && c < 256) narrow[j] = c;
      else putWide(j, c);
      j++;
      i++;
      continue;
    }
    kinds |= 1 << escapeKind(esc);
    i += escapeLength(esc);
    let cp = escapeCodePoint(esc);
    if (cp === NOTHING) continue;
    if (cp > 0xffff) {
      putWide(j++, 0xd800 + ((cp - 0x10000) >> 10));
      cp = 0xdc00 + ((cp - 0x10000) & 0x3ff);
    }
    if (wide === undefined && cp < 256) narrow[j] = cp;
    else putWide(j, cp);
    j++;
  }
  if (kinds === 0) return undefined;
  const decoded = wide === undefined ? narrow.toString("latin1", 0, j) : Buffer.from(wide.buffer, 0, j * 2).toString("utf16le");
  budget.remaining -= decoded.length;
  return new EscapeRun(text, start, end, ESCAPE_KINDS.filter((_, k) => kinds & (1 << k)).join("+"), decoded, Int32Array.from(checkpoints), family);
}

/** The code point of the character reference `text[i, i + len)` ({@link referenceLength} long: `&#95;`, `&#95`, `&#x5F;`, `&#x5F`, `&lowbar;`), or −1 (an unknown name, a surrogate, above U+10FFFF). */
function referenceCodePoint(text: string, i: number, len: number): number {
  let cp: number;
  if (text.charCodeAt(i + 1) === 35 /* # */) {
    const x = text.charCodeAt(i + 2);
    const digitsEnd = text.charCodeAt(i + len - 1) === 59 /* ; */ ? i + len - 1 : i + len;
    cp = x === 120 || x === 88 /* x X */ ? hexValue(text, i + 3, digitsEnd - i - 3) : decimalValue(text, i + 2, digitsEnd - i - 2);
  } else {
    const s = NAMED_ENTITIES.get(text.slice(i + 1, i + len - 1));
    cp = s === undefined ? -1 : s.charCodeAt(0);
  }
  return cp >= 0 && cp <= 0x10ffff && (cp < 0xd800 || cp > 0xdfff) ? cp : -1;
}

/** Value of the `n` decimal digits at `from`, or −1. */
function decimalValue(text: string, from: number, n: number): number {
  let v = 0;
  for (let k = 0; k < n; k++) {
    const d = text.charCodeAt(from + k) - 48;
    if (d < 0 || d > 9) return -1;
    v = v * 10 + d;
  }
  return v;
}

/**
 * Length of the escape sequence at `q` (a `%`, `\`, `&` or `=`) when it stands for a token
 * character ({@link isTokenCodePoint}) or introduces an escape of one ({@link
 * introducesTokenEscape}), else 0. Escape sequences: `%` + 2 hex digits (RFC 3986 §2.1); `\u` + 4
 * hex digits and `\\` (RFC 8259 §7); `\x` + 2 hex digits, `\` + 3 octal digits (C, Python,
 * JavaScript strings; bash `$'…'`); `&#` + 1-7 digits, `&#x` + 1-6 hex digits, or `&` + a letter and
 * 1-31 letters or digits, then `;` (HTML character references); `=` + 2 uppercase hex digits, and a
 * soft line break between two token characters (quoted-printable, RFC 2045 §6.7). Reads at most 35
 * code units; most candidates in prose are refused at the code unit after `q`.
 */
function tokenEscapeAt(text: string, q: number): number {
  const c = text.charCodeAt(q);
  const d = text.charCodeAt(q + 1);
  let cp: number;
  let len: number;
  if (c === 37 /* % */) [cp, len] = [hexValue(text, q + 1, 2), 3];
  else if (c === 92 /* \ */) {
    // Most backslashes of prose and code (`\n`, `\*`, a path's `\Users`) are refused at `d`.
    if (d === 10 || d === 13) return continuationLength(text, q);
    if (d !== 117 /* u */ && d !== 92 && d !== 120 /* x */ && !isHexDigit(d) /* octal 0-3, CSS */ && d !== 85 /* U */ && d !== 78 /* N */ && d !== 101 /* e */) return 0;
    const esc = backslashEscape(text, q, text.length);
    if (esc < 0) return 0;
    [cp, len] = [escapeCodePoint(esc), escapeLength(esc)];
  } else if (c === 94 /* ^ */) {
    const esc = caretEscape(text, q);
    if (esc < 0) return 0;
    [cp, len] = [escapeCodePoint(esc), escapeLength(esc)];
  } else if (c === 61 /* = */) {
    // A soft line break starts a run only inside a word: a token character on each side (not a
    // base64 block's padding `==`, not `x =` at the end of a line of code).
    const soft = softBreakAt(text, q);
    if (soft > 0) return softBreakStartsRun(text, q, soft) ? soft : 0;
    [cp, len] = [upperHexValue(text, q + 1), 3];
  } else {
    if (d !== 35 /* # */ && !isAsciiLetter(d)) return 0;
    len = referenceLength(text, q);
    if (len === 0) return 0;
    cp = referenceCodePoint(text, q, len);
  }
  return cp >= 0 && (isTokenCodePoint(cp) || (cp === ESC && escapedAnsiFollows(text, q + len)) || (cp === SOFT_HYPHEN && between(text, q, q + len)) || introducesTokenEscape(cp, text, q + len)) ? len : 0;
}

/** U+00AD, which renders as nothing (normalisation removes it): `&shy;`, `&#173;` between two token characters start a run. */
const SOFT_HYPHEN = 0xad;

/** Is `text[a, b)` between two token characters ({@link isTokenCodePoint})? */
const between = (text: string, a: number, b: number): boolean => a > 0 && isTokenCodePoint(text.charCodeAt(a - 1)) && isTokenCodePoint(text.charCodeAt(b));

/**
 * Length of the shell line continuation whose backslash is at `i` (`\` LF or `\` CR LF: bash
 * removes both, POSIX sh §2.2.1) when a token character is right before it and right after its
 * line break (a continuation line's indentation would make a new word in the shell), else 0.
 */
function continuationLength(text: string, i: number): number {
  const len = text.charCodeAt(i + 1) === 10 ? 2 : text.charCodeAt(i + 1) === 13 && text.charCodeAt(i + 2) === 10 ? 3 : 0;
  return len > 0 && between(text, i, i + len) ? len : 0;
}


/** Caret notation's `^[` (ESC, as `cat -v` and terminals show it) at `i` when the rest of a CSI sequence follows (`^[[0m`), as an {@link escapeCode}; else −1. */
function caretEscape(text: string, i: number): number {
  return text.charCodeAt(i + 1) === 91 /* [ */ && escapedAnsiFollows(text, i + 2) ? escapeCode(ESC, 2, ANSI_KIND) : -1;
}

const isAsciiLetter = (c: number): boolean => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const isDigit = (c: number): boolean => c >= 48 && c <= 57;
const isHexDigit = (c: number): boolean => isDigit(c) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
const isAlphanumeric = (c: number): boolean => isAsciiLetter(c) || isDigit(c);

/**
 * Length of the character reference at `q` (an `&`: `&#95;`, `&#x5F;`, `&lowbar;`), or 0 when
 * there is none. A numeric reference may lack its `;` (`&#95`, `&#x5f`: browsers decode it, WHATWG
 * HTML §13.2.5.80, "missing-semicolon-after-character-reference"); its digits are then all those
 * that follow, as a browser reads them (`&#x5fab` is U+5FAB, not `_ab`), and more digits than a
 * code point has (7 decimal, 6 hex) make no reference. Reads at most 35 code units.
 */
function referenceLength(text: string, q: number): number {
  let i = q + 1;
  // Plain loops, no closure: this runs at every `&` of an escaped word (one per 2 code units at worst).
  let from: number;
  if (text.charCodeAt(i) === 35 /* # */) {
    i++;
    const x = text.charCodeAt(i);
    if (x === 120 || x === 88 /* x X */) {
      from = ++i;
      while (i - from < 6 && isHexDigit(text.charCodeAt(i))) i++;
      if (i === from || isHexDigit(text.charCodeAt(i))) return 0;
    } else {
      from = i;
      while (i - from < 7 && isDigit(text.charCodeAt(i))) i++;
      if (i === from || isDigit(text.charCodeAt(i))) return 0;
    }
    return text.charCodeAt(i) === 59 /* ; */ ? i + 1 - q : i - q;
  } else {
    if (!isAsciiLetter(text.charCodeAt(i++))) return 0;
    from = i;
    while (i - from < 31 && isAlphanumeric(text.charCodeAt(i))) i++;
  }
  return i > from && text.charCodeAt(i) === 59 /* ; */ ? i + 1 - q : 0;
}

/**
 * ASCII letters, digits and the punctuation tokens hold (`_-.+/=~`, and the field separators `:` of
 * Telegram's `<bot id>:<secret>` and `$` of Braintree's `access_token$production$…`): an escape of
 * anything else cannot hide a token. A URL-encoded query value (`token=123456789%3AAA…`) is decoded.
 */
const TOKEN_PUNCTUATION = byteSet("_-.+/=~:$");
const isTokenCodePoint = (cp: number): boolean => (cp >= 48 && cp <= 57) || (cp >= 65 && cp <= 90) || (cp >= 97 && cp <= 122) || TOKEN_PUNCTUATION[cp] === 1;

/**
 * Does the escape that decodes to `cp`, followed by `text` from `after`, decode to an escape of a
 * token character ({@link isTokenCodePoint})? E.g. `%25` + `5F` (`%5F`), `&amp;` + `#95;`,
 * JSON `\\` + `u005f`, `%5C` + `u005f`: a token escaped twice, found at depth 2. An escape of an
 * introducer followed by anything else (`100%25`, `R&amp;D`, `%25%25…`) starts no run.
 */
function introducesTokenEscape(cp: number, text: string, after: number): boolean {
  if (cp === 37 /* % */) return isTokenCodePoint(hexValue(text, after, 2));
  if (cp === 92 /* \ */) {
    const esc = backslashEscape(text, after - 1, text.length); // reads from `after` on, as for `&` below
    return esc >= 0 && isTokenCodePoint(escapeCodePoint(esc));
  }
  if (cp === 61 /* = */) return isTokenCodePoint(upperHexValue(text, after));
  if (cp !== 38 /* & */) return false;
  const c = text.charCodeAt(after);
  if (c !== 35 /* # */ && !((c >= 65 && c <= 90) || (c >= 97 && c <= 122))) return false;
  const len = referenceLength(text, after - 1); // reads from `after` on: the `&` is the escape before it
  return len > 0 && isTokenCodePoint(referenceCodePoint(text, after - 1, len));
}

/** The kinds of escape, by the index {@link escapeCode} stores in 4 bits: 16 at most. */
const ESCAPE_KINDS: readonly Encoding[] = ["percent", "json-unicode", "html-entity", "hex-escape", "octal-escape", "quoted-printable", "code-point-escape", "named-escape", "css-escape", "ansi-escape", "line-continuation"];
const HEX_KIND = 3;
const OCTAL_KIND = 4;
const QP_KIND = 5;
/** `\u{X…}` and `\UXXXXXXXX`. */
const CODE_POINT_KIND = 6;
/** `\N{NAME}`. */
const NAMED_KIND = 7;
/** CSS's `\5f ` (CSS Syntax Level 3 §4.3.7). */
const CSS_KIND = 8;
/** `\e` and caret notation `^[`, each only before the rest of an ANSI CSI sequence (`\e[1m`, `^[[0m`). */
const ANSI_KIND = 9;
/** A shell line continuation (`\` LF) between two token characters. */
const CONTINUATION_KIND = 10;

/** Value of the `n` hex digits at `from`, or −1. */
function hexValue(text: string, from: number, n: number): number {
  let v = 0;
  for (let k = 0; k < n; k++) {
    const c = text.charCodeAt(from + k);
    const d = c >= 48 && c <= 57 ? c - 48 : c >= 65 && c <= 70 ? c - 55 : c >= 97 && c <= 102 ? c - 87 : -1;
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}


