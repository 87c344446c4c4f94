/**
 * Linear-time guarantee, measured in the same run so machine speed cancels out:
 * 1. ratio: each adversarial input must scan within {@link FACTOR}x the time of ordinary text of the
 *    same size (catches a large per-position constant, e.g. a bounded {0,16000} run retried at every
 *    repeated prefix);
 * 2. growth: one scan of an adversarial input of size 8n may take at most {@link GROWTH}x the time of
 *    eight scans of its n-sized version (linear ≈ 1x, quadratic ≈ 8x). Both sides do the same amount of
 *    linear work, so they last about as long and a loaded machine (time slices, other processes)
 *    stretches both alike; comparing one short scan with one long scan would not be fair.
 * Robust on a loaded machine: time is the process's CPU time ({@link timeOnce}), not wall time; the
 * two inputs of a comparison are timed alternately (a load spike
 * hits both), several times, and each side's minimum is compared; a verdict over its bound is
 * measured again ({@link ATTEMPTS}). The self-checks at the end run the
 * same verdict functions on a deliberately slow rule and show that they would fail.
 */
import { describe, expect, it } from "vitest";
import { ALPHABETS, prng, randomChars } from "./fakes.js";
import type { Rule } from "./rule.js";
import { RULES } from "./rules/index.js";
import { scan } from "./scan.js";
import { parseConfig } from "./config.js";
import { ASCII_PUNCTUATION } from "./engine/normalize.js";

/** Size of the inputs of a ratio verdict: the ordinary text and each adversarial input. */
const SIZE = 2 * 1024 * 1024;
/**
 * Size of the larger input of a growth verdict (8 × 64 KiB), a quarter of {@link SIZE}: the growth
 * rows were three quarters of this file's time at 2 MiB. Both sides of a growth verdict do the same
 * linear work, so it needs no large input to be stable (at 512 KiB, 3 repetitions, load ~27: rows 0.05-2.8,
 * most near 1), and a quadratic term still shows: with the quadratic `indexOf(";")` per `&` of
 * bbb0647 put back, the `&` word's row measured 7.06 (bound 3). The ratio rows keep 2 MiB: at
 * 512 KiB their fixed per-scan costs weigh more and 5 of them went over 16x under load.
 */
const GROWTH_SIZE = 512 * 1024;
/**
 * Adversarial time / ordinary time, upper bound. A retried bounded run (what this catches) was
 * 48-97x; the self-check's slow rule measures ~450x. The dense rows below cost a work item per few
 * characters (a regex attempt per prefix hit, a decode per run, a word read per normalisation
 * trigger) against ordinary text that the prefix automaton reads with 4 interleaved DFA runs: the
 * highest measured 13.7-14.8x of CPU time (load 6-10), 15-17.6x of wall time in the fresh-clone CI
 * runs of 2026-12-01/02, which failed on rows 7% over a bound of 16. 24 kept 1.6x above the highest
 * row and 2x below the slowest defect seen. Since the automaton's DFA steps run in WebAssembly
 * (engine/dfa-kernel.ts, 2026-12-03) ordinary text is read ~1.4x faster while the dense rows' work
 * items cost what they did, so every ratio reads ~1.4x higher (same process, load ~10: 60-character
 * base64 runs after a CR LF 21.1 → 28.4, `ESC[1mghp_` repeated 16.5 → 23.6): the bound scales with
 * it, 24 → 36, and the defects above would read ~70-140x.
 */
const FACTOR = 36;
/** Time of one scan at 8n / time of eight scans at n, upper bound (linear 1, quadratic 8). */
const GROWTH = 3;
const REPS = 5;
/**
 * Measurements of one verdict at most: a verdict over its bound is measured again, and fails only
 * if every attempt is over it. A load burst on a shared machine (CI runners, other processes)
 * seldom lasts through three measurements; non-linear work is over the bound every time (the
 * self-checks below go through the same retries).
 */
const ATTEMPTS = 3;

const WORDS = (
  "the of and to in is you that it for on with as are this be at have from or by not but what all were when we " +
  "there can an your which their said if do will each about how up out them then she many some so these would other " +
  "into has more her two like him see time could no make than first been its who now people my made over did down " +
  "only way find use may water long little very after words called just where most know config token server client"
).split(" ");

/** Markdown-like prose with headings, inline code, links and code blocks (deterministic). */
function ordinaryText(size: number): string {
  const next = prng(11);
  const parts: string[] = [];
  let len = 0;
  while (len < size) {
    const r = next();
    const w = WORDS[Math.floor(next() * WORDS.length)]!;
    const piece =
      r < 0.02 ? `\n## ${w} section\n\n` : r < 0.05 ? ` [${w}](https://example.com/${w}/docs) ` : r < 0.08 ? ` \`${w}_value()\` ` : r < 0.1 ? `.\n` : `${w} `;
    parts.push(piece);
    len += piece.length;
  }
  return parts.join("").slice(0, size);
}

const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const HEX = "0123456789abcdef";
/** An AWS key ID the `aws-access-token` rule refuses (it ends in EXAMPLE) but the pair rule reads. */
const awsId = (prefix: string, seed: number) => `${prefix}${randomChars(9, seed, BASE32)}EXAMPLE`;
/** `size` characters of base64 wrapped at 76 (coreutils `base64`) decoding to printable ASCII: one block that decodes whole. */
function wrappedPrintableBase64(size: number): string {
  const next = prng(5);
  const bytes = Buffer.from(Array.from({ length: Math.ceil((size * 3) / 4) }, () => 0x20 + Math.floor(next() * 95)));
  const flat = bytes.toString("base64");
  const lines: string[] = [];
  for (let i = 0; i < flat.length; i += 76) lines.push(flat.slice(i, i + 76));
  return lines.join("\n").slice(0, size);
}
/** `size` characters of distinct valid AWS key IDs (`AKIA` + 16 base32), space-separated. */
function distinctAwsIds(size: number): string {
  const next = prng(13);
  const parts: string[] = [];
  for (let len = 0; len < size; len += 21) parts.push(`AKIA${Array.from({ length: 16 }, () => BASE32[Math.floor(next() * 32)]).join("")} `);
  return parts.join("").slice(0, size);
}
const repeatTo = (unit: string, size: number) => unit.repeat(Math.ceil(size / unit.length)).slice(0, size);

/**
 * CPU time (user + system, ms) of this worker process while `fn` runs. Not wall time: on a loaded
 * machine a long scan waits for a core many times while a short one may not, which stretched the
 * adversarial side of a ratio alone. Lead's run at load 6-10 (2026-12-02, the same ratio rows):
 * wall time max 19.09x, three rows over 16 after their retries; CPU time max 14.82x, none over.
 */
function timeOnce(fn: () => void): number {
  const before = process.cpuUsage();
  fn();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

/**
 * Best (minimum) time in ms of `a` and of `b`, timed alternately `reps` times after one warm-up of
 * each, so that a burst of load on the machine slows both sides rather than one.
 */
function interleavedBest(a: () => void, b: () => void, reps = REPS): { a: number; b: number } {
  a();
  b();
  let bestA = Infinity;
  let bestB = Infinity;
  for (let k = 0; k < reps; k++) {
    bestA = Math.min(bestA, timeOnce(a));
    bestB = Math.min(bestB, timeOnce(b));
  }
  return { a: bestA, b: bestB };
}

/** The smallest of up to {@link ATTEMPTS} values of `measure()`, stopping at the first under `bound`. */
function settled(measure: () => number, bound: number): number {
  let best = Infinity;
  for (let k = 0; k < ATTEMPTS && best >= bound; k++) best = Math.min(best, measure());
  return best;
}

/** Time ratio adversarial / ordinary (same size, same rules). */
function slowdown(adversarial: string, ordinary: string, rules: readonly Rule[] = RULES, reps = REPS): number {
  const t = interleavedBest(() => scan(ordinary, { rules }), () => scan(adversarial, { rules }), reps);
  return t.b / Math.max(t.a, 0.05);
}

/** Time ratio: one scan of make(8n) / eight scans of make(n). */
function growth(make: (size: number) => string, n: number, rules: readonly Rule[] = RULES, reps = REPS): number {
  const small = make(n);
  const large = make(8 * n);
  const t = interleavedBest(
    () => {
      for (let k = 0; k < 8; k++) scan(small, { rules });
    },
    () => scan(large, { rules }),
    reps,
  );
  return t.b / Math.max(t.a, 0.05);
}

const prefixes = [...new Set(RULES.flatMap((r) => r.prefixes))];
const cases: [string, (size: number) => string][] = [
  ["one prefix repeated (ghp_ghp_...)", (n) => repeatTo("ghp_", n)],
  ["every catalog prefix repeated, block by block", (n) => prefixes.map((p) => repeatTo(p, Math.floor(n / prefixes.length))).join("\n").slice(0, n)],
  [
    "every catalog prefix followed by a run of token characters without terminator",
    (n) => prefixes.map((p) => p + repeatTo("aB3-xZ9_", Math.floor(n / prefixes.length) - p.length)).join("\n").slice(0, n),
  ],
  ["every catalog prefix repeated with a dash", (n) => prefixes.map((p) => repeatTo(p + "a-", Math.floor(n / prefixes.length))).join("\n").slice(0, n)],
  ["one line of ordinary text (no newline)", (n) => ordinaryText(n).replace(/\n/g, " ")],
  ["a run of token characters without terminator", (n) => "ghp_" + repeatTo("aB3xZ9", n - 4)],
  // Normalisation (engine/normalize.ts, scan.ts): a removal's word is read once, and the whole text
  // normalised and searched again when a prefix starts before a removal in it; dense removals.
  ["backslash + every ASCII punctuation character, repeated", (n) => repeatTo(Array.from(ASCII_PUNCTUATION, (p) => `\\${p}`).join(""), n)],
  ["one line of \\_ (escaped underscores)", (n) => repeatTo("\\_", n)],
  ["words of escaped underscores (a\\_b repeated, apart by spaces)", (n) => repeatTo("a\\_b ", n)],
  // Every `\_` a trigger whose word may split a token (`ghp\_`): 66 ms per MiB against Markdown's ~4.
  ["backslash escapes inside repeated prefixes (ghp\\_ghp\\_…)", (n) => repeatTo("ghp\\_", n)],
  ["soft hyphens only", (n) => "\u00AD".repeat(n)],
  ["soft hyphens inside repeated prefixes (g\u00ADhp_…)", (n) => repeatTo("g\u00ADhp_", n)],
  ["words with a soft hyphen after a key block header (a removal within its reach each)", (n) => repeatTo("-----BEGIN PRIVATE KEY-----\na\u00ADb ", n)],
  ["tag characters (surrogate pairs) only", (n) => repeatTo("\u{E0041}", n)],
  ["one word of numeric HTML references without ; (ghp&#95…)", (n) => repeatTo("ghp&#95", n)],
  ["one line of &#95 without ;", (n) => repeatTo("&#95", n)],
  ["one word of &# and digits without ; (&#1&#12&#123…)", (n) => repeatTo("&#1&#12&#1234567&#12345678", n)],
  // Issue 10, "Measured": single lines of `=`, of `postgres://`, of base64-looking text.
  ["one line of =", (n) => "=".repeat(n)],
  ["one line of postgres:// repeated", (n) => repeatTo("postgres://", n)],
  // URL user info of any scheme with raw reserved characters (rule-helpers/url-credentials.ts): a
  // password runs to an @ and may hold `/?#:`, so each `://` reads on until the next `://`.
  ["one line of x://a: repeated (a URL user and password start at every 6 characters)", (n) => repeatTo("x://a:", n)],
  ["one line of @", (n) => "@".repeat(n)],
  ["x://a: then one line of @", (n) => "x://a:" + "@".repeat(n - 6)],
  ["one line of x://a:b@ and a host run repeated", (n) => repeatTo(`x://a:b@${"h".repeat(300)}`, n)],
  // try14 F17/F21: the JSON-escaped separator, and URLs opened by a quote (that quote ends them
  // unless escaped) or not (quotes, `<` and `\` are password characters).
  ["one line of x:\\/\\/a: repeated (JSON-escaped separators)", (n) => repeatTo(String.raw`x:\/\/a:`, n)],
  ["one line of \"x://a:\\\" repeated (double-quoted URLs with escaped quotes)", (n) => repeatTo(String.raw`"x://a:\"`, n)],
  ["one line of 'x://a:\\' repeated (single-quoted URLs with escaped quotes)", (n) => repeatTo(String.raw`'x://a:\'`, n)],
  ["x://a: then one line of '\"<\\ (a password of quotes without an @)", (n) => "x://a:" + repeatTo(`'"<\\`, n - 6)],
  // The decode layer (engine/decode.ts): runs that decode to text, at both depths, and escapes.
  // (QUJD… decodes to ABCABC…, base64 again, refused at depth 2. QUFB… would decode to AAAA…, which
  // measures the rule whose prefix is 20 A's hit at every position, ~5x prose: "every catalog prefix
  // repeated" covers that.)
  ["one base64 run that decodes to text that is base64 again (QUJD…)", (n) => repeatTo("QUJD", n)],
  ["one base64 run of repeated prefixes (base64 of ghp_ghp_…)", (n) => repeatTo(Buffer.from("ghp_ghp_ghp_").toString("base64"), n)],
  ["words of 23 base64 characters (one short of a run)", (n) => repeatTo("abcdefghij0123456789xyz ", n)],
  ["one word of percent escapes", (n) => repeatTo("ghp%5F", n)],
  ["one word of HTML character references and JSON escapes", (n) => repeatTo("&#95;&lowbar;\\u005f", n)],
  ["escapes in many short words", (n) => repeatTo("a%20 ", n)],
  // Escapes escaped twice and line-wrapped base64 (decode.ts): an escaped `%`, `&` or `\` starts a
  // decode only before an escape of a token character; a block of equal-width lines is one run.
  ["one word of percent-encoded percents (%25%25…)", (n) => repeatTo("%25", n)],
  ["escapes escaped twice, repeated (ghp%255F&amp;#95;\\\\u005f)", (n) => repeatTo("ghp%255F&amp;#95;\\\\u005f", n)],
  // Hex and octal escapes and quoted-printable (decode.ts, try14 F7): words of them, a text that is
  // one word joined by soft line breaks, and `=` candidates refused at every other code unit.
  ["one word of hex and octal escapes (ghp\\x5f\\137…)", (n) => repeatTo("ghp\\x5f\\137", n)],
  ["one word of quoted-printable soft line breaks (ab=\\n…) with =5F", (n) => repeatTo("ghp=5Fab=\n", n)],
  ["one line of = before a letter and a digit (a=b1=…)", (n) => repeatTo("a=b1=", n)],
  // Code point and name escapes, base64 of UTF-16LE text (decode.ts, try16 F2, F19): a word of
  // them, `\N{` whose name never closes (each read up to MAX_NAMED_ESCAPE code units), one run.
  ["one word of \\u{5f} repeated", (n) => repeatTo("\\u{5f}", n)],
  ["one line of \\N{ without } (ghp\\N{LATIN SMALL LETTER A repeated)", (n) => repeatTo("ghp\\N{LATIN SMALL LETTER A", n)],
  ["one word of \\U0000005F repeated", (n) => repeatTo("\\U0000005F", n)],
  ["one run of base64 of UTF-16LE text ($env:T = 'ghp_…' repeated)", (n) => Buffer.from(repeatTo(`$env:T = 'ghp_${randomChars(36, 9)}'; `, Math.ceil((n * 3) / 8)), "utf16le").toString("base64").slice(0, n)],
  ["one run of base64 of UTF-16BE text with a byte order mark (/v8A… of T='ghp_…' repeated)", (n) => Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(repeatTo(`T='ghp_${randomChars(36, 9)}'; `, Math.ceil((n * 3) / 8)), "utf16le").swap16()]).toString("base64").slice(0, n)],
  // Hex runs (decode.ts, decodeHexRun): one run of the hex of repeated prefixes (decoded whole, a
  // ghp_ hit every 4 decoded characters), one of random hex (gates in it by chance, refused at its
  // first bytes), gates alone in short words, and runs of 24 digits that start with a gate and are
  // refused at their zero bytes (a hex check and a decode each).
  ["one line of hex of repeated prefixes (6768705f…)", (n) => repeatTo("6768705f", n)],
  ["one line of random hex", (n) => randomChars(n, 23, HEX)],
  // A hex run that starts a DER private key is decoded to base64 (decode.ts, derHexHead; try18 F2):
  // one run of DER key headers repeated (a key's gate at every 24 bytes); short runs of one: dense rows.
  ["one line of hex of repeated DER key headers (302e020100300506032b6570…)", (n) => repeatTo("302e020100300506032b657004220420", n)],
  ["hex gates with nothing after (676870 repeated, apart by spaces)", (n) => repeatTo("676870 ", n)],
  ["runs of 24 hex digits, a gate then zero bytes (6768700000…)", (n) => repeatTo(`676870${"0".repeat(18)} `, n)],
  // Perl/Ruby \x{…}, CSS \5f (its space joins words), escaped ANSI colour codes (\e[1m, ^[[0m,
  // \x1b[31m: decoded, then removed in normalisation), and a key's armor escaped with plain text
  // between: escaped words with BEGIN merged across long gaps to the next with END (decode.ts).
  ["one word of \\x{5f} and CSS \\5f  escapes (ghp\\x{5f}\\5f \\5f…)", (n) => repeatTo("ghp\\x{5f}\\5f \\5f", n)],
  ["one line of escaped ANSI colour codes (\\e[1m^[[0m\\x1b[31mghp_…)", (n) => repeatTo("\\e[1m^[[0m\\x1b[31mghp_", n)],
  ["one line of ^[ without a sequence after it (^[^[…)", (n) => repeatTo("^[", n)],
  ["escaped BEGIN and END words 1 000 characters apart (&#45;BEGIN … &#45;END …)", (n) => repeatTo(`&#45;BEGIN ${"a".repeat(1000)} &#45;END `, n)],
  // Shell line continuations (\ LF between token characters: the word goes on after the line
  // break) and soft hyphens as references (decode.ts, issue 10): one word of them, and lines of a
  // continuation after a space (refused at the code unit before it).
  ["one word of shell line continuations (ab\\\ncd&shy;…)", (n) => repeatTo("ab\\\ncd&shy;", n)],
  ["lines ending in a space and \\ (make \\\n…)", (n) => repeatTo("make \\\n", n)],
  // Joins across a seam (engine/joins.ts, try19 F1): every line a missed prefix hit at a seam, a
  // chain of literals each both a second and a first part, and prefixes glued into a word longer
  // than a part before a seam (read once, not once per prefix).
  ["lines of a prefix literal concatenated (\"ghp_\" +\\n…)", (n) => repeatTo(`"ghp_" +\n`, n)],
  ["lines of a prefix cut by a line break (ghp_ab\\n…)", (n) => repeatTo("ghp_ab\n", n)],
  ["lines of a prefix cut by a line break, long enough to be joined (ghp_abcdefghijklmnop\\n…)", (n) => repeatTo("ghp_abcdefghijklmnop\n", n)],
  ["one chain of short prefix literals (\"ghp_a\" . \"ghp_a\" . …)", (n) => repeatTo(`"ghp_a" . `, n)],
  ["prefix words of 600 characters before a seam (\"ghp_ghp_…\" + \"…)", (n) => repeatTo(`"${"ghp_".repeat(150)}" + `, n)],
  // One escaped word of `&` without `;`: each `&` looked for its `;` to the end of the word (quadratic).
  ["one escaped word of & without ; (ghp%5F&a&a…)", (n) => "ghp%5F" + repeatTo("&a", n - 6)],
  ["76-character base64 lines of printable text (one block that decodes whole)", (n) => wrappedPrintableBase64(n)],
  ["76-character base64 lines of binary, a gate (Z2hwX) in each", (n) => repeatTo(`Z2hwX${"/+9z".repeat(17)}zzz\n`, n)],
  // Leads and tails of a wrapped block's lines (decode.ts, isLeadChar / isTailChar; try16 F1): each
  // run walks back over at most MAX_LEAD lead characters; leads that differ line by line stop a block.
  ["76-character base64 lines of printable text in a block quote (> on each)", (n) => wrappedPrintableBase64(n - 2 * Math.ceil(n / 77)).replace(/^/gm, "> ")],
  ["lines of 40 base64 characters whose leads alternate (> and > >)", (n) => repeatTo(`> ${"QUJD".repeat(10)}\n> > ${"QUJD".repeat(10)}\n`, n)],
  ["lines of a 40-character lead of > then 40 base64 characters and a tail of \",", (n) => repeatTo(`${">".repeat(40)}${"QUJD".repeat(10)}",\n`, n)],
  // Runs that are not text from their first character are read at their 4 alignments
  // (engine/realign.ts): one run of random base64 glued to `/` (gates in it by chance), and one
  // that decodes to text at every alignment (VVVV… is UUUU… at each), also glued to `/`.
  ["one run of random base64 glued to /", (n) => `/${randomChars(n - 1, 21, ALPHABETS.base64)}`],
  ["one run glued to / that decodes to text at every alignment (/Z2hwXVVVV…)", (n) => `/Z2hwX${"V".repeat(n - 6)}`],
  // A block's lines are checked to end right after their base64: each 60-character run looked for
  // the next LF, to the end of the line (with a CR LF first, every run is searched for: quadratic).
  ["one line of 60-character base64 runs apart by spaces, after a CR LF", (n) => "\r\n" + repeatTo(`${"QUFB".repeat(15)} `, n - 2)],
  // Lone CRs become LF in normalisation (engine/normalize.ts): a native replace cost ~0.4 µs per CR,
  // ~20x Markdown per byte in the bench with a CR at every code unit.
  ["lone CRs only (CR-only line ends, every line empty)", (n) => "\r".repeat(n)],
  ["CRLFs only (every line empty)", (n) => repeatTo("\r\n", n)],
  // ANSI escape sequences are removed in normalisation (engine/normalize.ts, ansiLength; try17 H1):
  // each is read at most to its 64th code unit or the next ESC.
  ["one line of \\x1b[1m repeated", (n) => repeatTo("\x1b[1m", n)],
  ["one line of \\x1b[ without final byte repeated", (n) => repeatTo("\x1b[", n)],
  ["ESC repeated", (n) => "\x1b".repeat(n)],
  ["one line of \\x1b[1mghp_ repeated", (n) => repeatTo("\x1b[1mghp_", n)],
  ["one line of an unterminated OSC (\\x1b]8;; and 60 characters) repeated", (n) => repeatTo(`\x1b]8;;${"h".repeat(60)}`, n)],
  // A key-block header on every line: putty-private-key read the next 30 lines after each (~7.7x).
  ["a PuTTY key header on every line (PuTTY-User-Key-File-3: ssh-ed25519)", (n) => repeatTo("PuTTY-User-Key-File-3: ssh-ed25519\n", n)],
  // Key blocks in Markdown shapes (rule-helpers/block-lines.ts, try14 F4): blanks alone, `<br>`, a
  // table cell's `|`, list numbers separate a block's lines; each attempt stops where its body does.
  ["a BEGIN line then one-letter words joined by spaces, repeated", (n) => repeatTo(`-----BEGIN PRIVATE KEY----- ${"a ".repeat(40)}`, n)],
  ["a BEGIN line then lines of 31 base64 characters joined by <br>, repeated", (n) => repeatTo(`-----BEGIN OPENSSH PRIVATE KEY-----<br>${`${"Ab1+".repeat(7)}Ab1<br>`.repeat(8)}`, n)],
  ["a BEGIN line then numbered table rows of 40 base64 characters and blanks, repeated", (n) => repeatTo(`| -----BEGIN RSA PRIVATE KEY----- |\n${"| 12. Ab1/Ab1/Ab1/Ab1/Ab1/Ab1/Ab1/Ab1/Ab1/Ab1/     |\n".repeat(4)}| -----END |\n`, n)],
  ["one line of `<br>` and `| ` repeated", (n) => repeatTo("<br>| ", n)],
  // An OpenSSH key body without its BEGIN line (openssh-unarmored-private-key, try14 F5): the magic
  // on every line, each followed by a short run.
  ["the OpenSSH key magic on every line", (n) => repeatTo("b3BlbnNzaC1rZXktdjEAAAAA\n", n)],
  ["a PuTTY private section header on every line (Private-Lines: 1)", (n) => repeatTo("Private-Lines: 1\n", n)],
  // PKCS#8/PKCS#1/SEC 1 key bodies without BEGIN line (pkcs-unarmored-private-key, try17 H2): each
  // prefix after its lead (the lookbehind) and a short run; the prefixes glued with no lead.
  ["one line of the PKCS#1, SEC 1 and Ed25519 headers repeated, each followed by a blank", (n) => repeatTo("MIIEpAIBAAKCAQEA MHcCAQEEI MC4CAQAwBQYDK2V ", n)],
  ["one line of the PKCS prefixes glued without leads", (n) => repeatTo("IBAAKAgEBBAQEEIAgEAMBAQAwBQYDK2V", n)],
  // JDBC URLs (database-url-password-parameter, oracle-jdbc-url-credentials; try14 F6): a parameter
  // run without a password (each attempt reads at most 512 characters, never past the next jdbc:),
  // and Oracle's user/ repeated with no @ after it.
  ["one line of jdbc: URLs with a long parameter run and no password", (n) => repeatTo(`jdbc:mysql://h/d?${"a=b&".repeat(200)}`, n)],
  ["one line of jdbc:x;a= repeated", (n) => repeatTo("jdbc:x;a=", n)],
  ["one line of jdbc:oracle:thin:a/b repeated (no @)", (n) => repeatTo("jdbc:oracle:thin:a/b", n)],
  // The pair rules (rule-helpers/key-pair.ts): a secret within 5 lines of each key ID, before or
  // after it. A line of repeated IDs made every ID read its whole window (~40x Markdown per byte).
  // The AWS IDs end in EXAMPLE, so aws-access-token refuses them: a valid ID is a finding of its own
  // each time (denseMatches below). After a 40-character hex run (a git commit id, refused) each ID
  // has a candidate secret before it.
  // aws-secret-access-key-assignment (try15 F3): a leading lookbehind of up to 32 identifier
  // characters at every name, and a 40-character value its validator refuses.
  ["a long identifier ending in SECRET_ACCESS_KEY = and a refused value, repeated", (n) => repeatTo(`${"x".repeat(40)}SECRET_ACCESS_KEY = '${"a1".repeat(20)}' `, n)],
  ["one line of repeated Twilio API key SIDs (SK…)", (n) => repeatTo(`SK${randomChars(32, 2, HEX)} `, n)],
];

/**
 * Inputs dense with complete work items, only under the growth check: every prefix hit a complete
 * match its validator refuses (one plain regex match and one validation each), or every 25
 * characters a base64 run that decodes to text (one decode each; the decoded runs are scanned
 * together), or every 21 characters a valid AWS key ID (an aws-access-token finding each). The bench measures them at ~5-6x Markdown per byte; the constant is the price of the
 * work item, not a retry, and does not grow with the input.
 */
const denseMatches: [string, (size: number) => string][] = [
  // A hex run every 97 characters that starts a DER private key (decode.ts, derHexHead): a decode to
  // base64, a rescan and a key rule attempt each. 24.8x ordinary text before the DFA kernel, 33-37x
  // after it (same absolute cost, ordinary text ~1.4x faster; load ~10): the price of a work item.
  ["hex runs of 96 digits, each a DER key header then zeros", (n) => repeatTo(`302e020100300506032b657004220420${"0".repeat(64)} `, n)],
  // A zero-width character (a normalisation trigger: its word read) and a CR (the pass restarted over
  // line-normalised text) every 8 characters, after a prefix each: 16-19x ordinary text at b4517bc,
  // ~18.5 after a53756d (one process, load ~4), 27-30x when measured after other rows at load 4-5, and
  // over 24 in all three attempts in the fresh-clone CI of ad97697 (Node 20, load ~4): the price of
  // three work items per 8 characters; its growth row stays.
  ["zero-width characters and CRLF everywhere", (n) => repeatTo("ghp_\u200Bab\r\n", n)],
  // Every character an escape introducer whose next character is examined by each escape kind
  // (`\x{`, CSS `\5f`, `\e[`, a line continuation, octal, `\u`...): 25.63x ordinary text in the
  // fresh-clone CI of fa9072b on Node 24 (passed on Node 20); the kinds added on 2026-12-03 cost
  // 5-11% more on it (CPU time of 2 MiB, 7adc1c8's dist against fa9072b's, Node 20 and 24).
  ["one line of backslashes (escaped backslashes)", (n) => "\\".repeat(n)],
  // A PKCS#8 header on every 33 characters (pkcs-unarmored-private-key): a rule attempt and a DER
  // check each, 24.05x ordinary text in the fresh-clone CI run of cf4907a: the price of a work item.
  ["the PKCS#8 RSA key header on every line, each followed by a short run", (n) => repeatTo("MIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n", n)],
  ["one line of postgres://user:password@ repeated (a placeholder URL credential each time)", (n) => repeatTo("postgres://user:password@", n)],
  // The OpenSSH key magic and 160 base64 characters across 3 lines, repeated: a complete match of
  // openssh-unarmored-private-key each time that its validator refuses (no key structure).
  ["the OpenSSH key magic and 160 base64 characters across lines, repeated (a body the validator refuses each)", (n) => repeatTo(`b3BlbnNzaC1rZXktdjEAAAAA${"Qk1x".repeat(12)}\n${"Qk1x".repeat(16)}\n${"Qk1x".repeat(16)}\n`, n)],
  // A SEC 1 key header and 64 base64 characters across 2 lines, repeated: a complete match of
  // pkcs-unarmored-private-key each time that its validator refuses (the material repeats).
  // The same headers joined by `+` (a base64 character): one line of base64, a complete match each
  // 14 characters that the validator refuses (~47x ordinary text per byte: the price of the match).
  ["one line of the PKCS#1, SEC 1 and Ed25519 headers joined by + (a complete match the validator refuses each 14 characters)", (n) => repeatTo("MIIEpAIBAAKCAQEA+MHcCAQEEI+MC4CAQAwBQYDK2V+", n)],
  ["a SEC 1 key header and 64 base64 characters across lines, repeated (a body the validator refuses each)", (n) => repeatTo(`MHcCAQEEI${"Qk1x".repeat(6)}Qk1\n${"Qk1x".repeat(8)}\n`, n)],
  // A JDBC password parameter every 40 characters, a placeholder each (a match its validator refuses).
  ["one line of jdbc:mysql://h/d?password=password repeated (a placeholder each)", (n) => repeatTo("jdbc:mysql://db/d?user=a&password=password ", n)],
  // Raw reserved characters in a URL password (rule-helpers/url-credentials.ts): `a:p#/?` at host
  // `hx:` is a credential, a finding every 12 characters (one value: one fingerprint).
  ["one line of a URL of user a, password p#/?, host h repeated (a URL credential with raw reserved characters each time)", (n) => repeatTo("x://a:p#/?" + "@h", n)],
  // AWS key IDs (pair rules, rule-helpers/key-pair.ts): every 21 characters two rule attempts
  // (aws-access-token and the pair lookup, pair-search.ts), ~7x generated prose per byte in one
  // process, above 16x at times under load; the IDs end in EXAMPLE so that aws-access-token refuses
  // them (a valid ID is a finding each: last row). After a 40-character hex run (a git commit id, a
  // candidate secret the validator refuses, and a decode) each ID has a candidate before it.
  ["one line of repeated AWS access key IDs (AKIA…)", (n) => repeatTo(`${awsId("AKIA", 1)} `, n)],
  ["one line of AWS key IDs each after a 40-character hex run", (n) => repeatTo(`${randomChars(40, 3, HEX)} ${awsId("AKIA", 4)} ${awsId("ASIA", 5)} `, n)],
  ["short lines of AWS key IDs and Twilio SIDs", (n) => repeatTo(`${awsId("AKIA", 6)} SK${randomChars(32, 7, HEX)}\n`, n)],
  ["one line of valid AWS access key IDs, one value repeated (an aws-access-token finding each)", (n) => repeatTo(`AKIA${randomChars(16, 8, BASE32)} `, n)],
  // Distinct valid IDs: a finding each and an HMAC each (~1.3 µs: the fingerprint is per value).
  ["one line of distinct valid AWS access key IDs (a finding and a fingerprint each)", (n) => distinctAwsIds(n)],
  // The same, base64-encoded: a decoded finding every 28 characters.
  ["base64 of repeated valid AWS access key IDs (a decoded finding each)", (n) => Buffer.from(repeatTo(`AKIA${randomChars(16, 9, BASE32)} `, Math.ceil((n * 3) / 4))).toString("base64").slice(0, n)],
  // A wrapped base64 block every 126 characters (decode.ts: one decoded run each, ~7x Markdown per
  // byte in the bench, 16-17x at times in this test under load): the price of a work item.
  ["60- and 64-character base64 lines alternating (a two-line block each time)", (n) => repeatTo(`${"QUFB".repeat(15)}\n${"QUFB".repeat(16)}\n`, n)],
  ["base64 runs of the minimum length that decode to text, one per line", (n) => repeatTo(Buffer.from("user:ghp_abcdefghi").toString("base64") + "\n", n)],
  // Glued before and after (engine/realign.ts): each run re-aligned and a tail of it decoded too.
  ["short base64url runs glued to / before and w after, one per line", (n) => repeatTo(`/${Buffer.from("user:ghp_abcdefghijk").toString("base64url")}w\n`, n)],
];

describe("scan time is linear for any input (full catalog)", () => {
  const ordinary = ordinaryText(SIZE);

  it.each(cases)(`%s stays within ${FACTOR}x of ordinary text of the same size`, (_name, make) => {
    const adversarial = make(SIZE);
    const r = settled(() => slowdown(adversarial, ordinary), FACTOR);
    expect(r, `adversarial/ordinary time ratio ${r.toFixed(2)}`).toBeLessThan(FACTOR);
  });

  it.each([...cases, ...denseMatches])(`%s: one scan of 8x the input costs at most ${GROWTH}x eight scans of the input`, (_name, make) => {
    const g = settled(() => growth(make, GROWTH_SIZE / 8), GROWTH);
    expect(g, `time(8n)/(8 × time(n)) = ${g.toFixed(2)}`).toBeLessThan(GROWTH);
  });
});

describe("custom rules that checkPatternSafety accepts stay linear (try20 F7)", () => {
  // The costliest shapes a config may still hold: a repeated variable-width group or two runs that
  // can split the same characters, each near the ambiguous-split limit (a match attempt of
  // ~27 000 and ~43 000 steps), fed their prefix followed by a run of what they split, again and again.
  const { customRules } = parseConfig({
    customRules: [
      { id: "acme-group", label: "ACME", prefixes: ["acme_"], pattern: "acme_(?:a{1,4}){1,4}[a-z]{1,40}b" },
      { id: "acme-runs", label: "ACME", prefixes: ["acmr_"], pattern: "acmr_[a-z]{1,120}[a-z0-9]{1,120}!" },
      // The flag i at the case-variant limit: 256 prefixes in the automaton (try21 F2).
      { id: "acme-case", label: "ACME", prefixes: ["acmecase"], pattern: "acmecase[a-z]{1,40}[a-z0-9]{1,40}!", flags: "i" },
    ],
  });
  /** Every case variant of `acmecase` in turn, each followed by a run the pattern reads to its end. */
  const caseVariantRuns = Array.from({ length: 256 }, (_, v) => [..."acmecase"].map((c, i) => ((v >> i) & 1 ? c.toUpperCase() : c)).join("") + "a".repeat(80) + " ").join("");
  it.each([
    ["acme_ and 61 a's, repeated", (n: number) => repeatTo(`acme_${"a".repeat(61)} `, n)],
    ["acmr_ and 240 a's, repeated", (n: number) => repeatTo(`acmr_${"a".repeat(240)} `, n)],
    ["the 256 case variants of acmecase, each with 80 a's, repeated", (n: number) => repeatTo(caseVariantRuns, n)],
  ])(`%s: one scan of 8x the input costs at most ${GROWTH}x eight scans of the input`, (_name, make) => {
    const g = settled(() => growth(make, GROWTH_SIZE / 64, customRules, 3), GROWTH);
    expect(g, `time(8n)/(8 × time(n)) = ${g.toFixed(2)}`).toBeLessThan(GROWTH);
  });
});

describe("the linearity checks catch slow rules (self-check)", () => {
  // Passes checkPatternSafety (longest match 16 003 ≤ 16 384) yet retries a long run at every
  // repeated prefix: bounded, so linear in theory, but with a huge constant; quadratic below the bound.
  // (Its body holds a space, so no token boundary is derived that would skip the repeated prefixes.)
  const slow: Rule = {
    id: "slow-rule",
    label: "deliberately slow rule",
    prefixes: ["qq_"],
    pattern: /qq_[a-z_ ]{0,16000}!/y,
    examples: () => ({ positive: [], negative: [] }),
  };

  it("a rule with a large bounded range on its repeated prefix exceeds the ratio", () => {
    const n = 16 * 1024;
    expect(settled(() => slowdown(repeatTo("qq_ ", n), ordinaryText(n), [slow], 2), FACTOR)).toBeGreaterThan(FACTOR);
  });

  it("quadratic work (input shorter than the bound) exceeds the growth limit", () => {
    expect(settled(() => growth((n) => repeatTo("qq_ ", n), 1950, [slow], 3), GROWTH)).toBeGreaterThan(GROWTH);
  });
});
