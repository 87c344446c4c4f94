#!/usr/bin/env node
// Scanner throughput benchmark (run by `npm run bench:scanner`, which builds first).
// Measures @teammem/scanner (dist/) and secretlint (@secretlint/core + preset-recommend) on the same
// bytes: >= 50 MB of real Markdown (README*/CHANGELOG* .md of installed npm packages) and adversarial
// inputs; prints rule counts, MB/s (MB = 10^6 UTF-8 bytes) and ratios as Markdown tables.
// secretlint is measured on a slice (it is much slower); the ratio compares MB/s on that same slice,
// timed alternately with ours (best of 3 each) so that load on a shared machine hits both.
// Options: --mb N (ordinary corpus size, default 50), --secretlint-mb N (default 4), --no-secretlint,
// --lines-only (only the issue-10 table of 5 MB single lines), --line TEXT (only the rows of that
// table whose name contains TEXT; implies --lines-only, repeatable); a folder argument (e.g. ../shared/corpus) takes its .md files as the corpus instead of the READMEs.
// Everything runs with the whole engine on (decode layer included); one row measures it off.
import { readdirSync, readFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { RULES, scan } from "../dist/index.js";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    mb: { type: "string" },
    "secretlint-mb": { type: "string" },
    "no-secretlint": { type: "boolean" },
    "lines-only": { type: "boolean" },
    line: { type: "string", multiple: true },
  },
});
const CORPUS_DIR = positionals[0];
const TARGET_MB = Number(values.mb ?? 50);
const SL_MB = Number(values["secretlint-mb"] ?? 4);
const LINE_FILTERS = values.line ?? [];
const LINES_ONLY = values["lines-only"] === true || LINE_FILTERS.length > 0;
const root = fileURLToPath(new URL("../../../", import.meta.url));

/** README*.md / CHANGELOG*.md under node_modules (or every .md file under `anyMd`'s folder), sorted by path. */
function markdownFiles(dir, out = [], anyMd = false) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.isDirectory()) markdownFiles(p, out, anyMd);
    else if (e.isFile() && (anyMd ? /\.md$/i.test(e.name) : /^(readme|changelog).*\.md$/i.test(e.name))) out.push(p);
  }
  return out;
}

const bytes = (s) => Buffer.byteLength(s, "utf8");
const mbps = (b, ms) => b / 1e6 / (ms / 1000);
const fmt = (x) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));

function best(fn, runs = 3) {
  let bestMs = Infinity;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    fn();
    bestMs = Math.min(bestMs, performance.now() - t0);
  }
  return bestMs;
}
async function bestAsync(fn, runs = 1) {
  let bestMs = Infinity;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    bestMs = Math.min(bestMs, performance.now() - t0);
  }
  return bestMs;
}

// ---- corpus
const files = (CORPUS_DIR ? markdownFiles(CORPUS_DIR, [], true) : markdownFiles(join(root, "node_modules"))).sort();
if (files.length === 0) throw new Error(`no Markdown files found${CORPUS_DIR ? ` under ${CORPUS_DIR}` : ""}`);
const docs = files.map((f) => readFileSync(f, "utf8"));
const uniqueBytes = docs.reduce((a, d) => a + bytes(d), 0);
const corpusDocs = [];
let corpusBytes = 0;
while (corpusBytes < TARGET_MB * 1e6) {
  for (const d of docs) {
    corpusDocs.push(d);
    corpusBytes += bytes(d);
    if (corpusBytes >= TARGET_MB * 1e6) break;
  }
}
const corpus = corpusDocs.join("\n");

// ---- secretlint
let lintSource, slCreator, slRuleCount;
if (!values["no-secretlint"] && !LINES_ONLY) {
  ({ lintSource } = await import("@secretlint/core"));
  const preset = await import("@secretlint/secretlint-rule-preset-recommend");
  slCreator = preset.creator;
  slRuleCount = preset.rules.length;
}
const slConfig = () => ({ config: { rules: [{ id: "@secretlint/secretlint-rule-preset-recommend", rule: slCreator }] }, maskSecrets: true });
async function secretlintScan(text, i = 0) {
  const r = await lintSource({ source: { content: text, filePath: `/bench/doc${i}.md`, ext: ".md", contentType: "text" }, options: slConfig() });
  return r.messages.length;
}

console.log(`# Scanner benchmark\n`);
console.log(`Machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${os.platform()} ${os.arch()}`);
console.log(`Rules: teammem-scan ${RULES.length} (${new Set(RULES.flatMap((r) => r.prefixes)).size} distinct prefixes); secretlint preset-recommend ${slRuleCount ?? "(skipped)"}`);
console.log(`Corpus: ${files.length} Markdown files${CORPUS_DIR ? ` under ${CORPUS_DIR}` : " (README/CHANGELOG of node_modules)"} (${fmt(uniqueBytes / 1e6)} MB unique) repeated to ${fmt(corpusBytes / 1e6)} MB\n`);

const prefixes = [...new Set(RULES.flatMap((r) => r.prefixes))];
const repeatTo = (unit, size) => unit.repeat(Math.ceil(size / unit.length)).slice(0, size);

if (!LINES_ONLY) {
// ---- ordinary text
scan(corpus.slice(0, 2e6)); // warm-up
const oneMs = best(() => scan(corpus), 5);
// File by file with the decode layer on and off, timed alternately (best of 5 each), so load on a
// shared machine hits both.
let perFileMs = Infinity;
let perFileNoDecodeMs = Infinity;
for (let k = 0; k < 5; k++) {
  perFileMs = Math.min(perFileMs, best(() => {
    for (const d of corpusDocs) scan(d);
  }, 1));
  perFileNoDecodeMs = Math.min(perFileNoDecodeMs, best(() => {
    for (const d of corpusDocs) scan(d, { decode: false });
  }, 1));
}
const rows = [];
rows.push(["Markdown, one string", corpusBytes, oneMs, undefined]);
rows.push(["Markdown, file by file", corpusBytes, perFileMs, undefined]);
rows.push(["Markdown, file by file, decode layer off", corpusBytes, perFileNoDecodeMs, undefined]);

// secretlint on a slice of whole files, same bytes for both
const slice = [];
let sliceBytes = 0;
for (const d of corpusDocs) {
  if (sliceBytes >= SL_MB * 1e6) break;
  slice.push(d);
  sliceBytes += bytes(d);
}
if (lintSource) {
  await secretlintScan(slice[0] ?? "", 0); // warm-up
  // Interleaved, best of 3 each: a burst of load on a shared machine slows both sides.
  let slMs = Infinity;
  let ourMs = Infinity;
  for (let k = 0; k < 3; k++) {
    const t0 = performance.now();
    for (let i = 0; i < slice.length; i++) await secretlintScan(slice[i], i);
    slMs = Math.min(slMs, performance.now() - t0);
    ourMs = Math.min(ourMs, best(() => {
      for (const d of slice) scan(d);
    }));
  }
  rows.push([`Markdown slice (${fmt(sliceBytes / 1e6)} MB), file by file`, sliceBytes, ourMs, slMs]);
}

// ---- adversarial inputs
const ADV = 8 * 2 ** 20;
const SL_ADV = 2 ** 20;
const adversarial = (size) => {
  const block = Math.floor(size / prefixes.length);
  return [
    ["repeated prefix ghp_ghp_…", repeatTo("ghp_", size)],
    ["every prefix repeated, block by block", prefixes.map((p) => repeatTo(p, block)).join("\n").slice(0, size)],
    ["every prefix + run of token chars, no terminator", prefixes.map((p) => p + repeatTo("aB3xZ9", block - p.length)).join("\n").slice(0, size)],
    ["one line, no newline (Markdown with \\n → space)", corpus.slice(0, size).replace(/\n/g, " ")],
    ["ghp_ + 8 MB run of token chars", "ghp_" + repeatTo("aB3xZ9", size - 4)],
    ["zero-width chars and CRLF everywhere", repeatTo("ghp_\u200Bab\r\n", size)],
  ];
};
const slAdv = lintSource ? new Map(adversarial(SL_ADV)) : new Map();
for (const [name, text] of adversarial(ADV)) {
  scan(text.slice(0, 1e5));
  const ms = best(() => scan(text));
  let slMs;
  if (lintSource) {
    const small = slAdv.get(name);
    const t = await bestAsync(() => secretlintScan(small));
    slMs = (t * bytes(text)) / bytes(small); // scaled to the same bytes as ours (MB/s is what is compared)
  }
  rows.push([`adversarial: ${name}`, bytes(text), ms, slMs]);
}

console.log(`| input | MB | teammem-scan MB/s | secretlint MB/s | ratio |`);
console.log(`|---|---:|---:|---:|---:|`);
for (const [name, b, ms, slMs] of rows) {
  const ours = mbps(b, ms);
  const theirs = slMs === undefined ? undefined : mbps(b, slMs);
  console.log(`| ${name} | ${fmt(b / 1e6)} | ${fmt(ours)} | ${theirs === undefined ? "" : fmt(theirs)} | ${theirs === undefined ? "" : fmt(ours / theirs) + "x"} |`);
}
if (lintSource) console.log(`\n(secretlint adversarial figures measured on ${SL_ADV / 2 ** 20} MiB inputs.)`);

}

// ---- issue 10: 5 MB single lines, per byte against 5 MB of Markdown as one string (no newline
// removed), timed alternately (best of 3 each).
const LINE = 5 * 2 ** 20;
const b64 = (s) => Buffer.from(s).toString("base64");
/** `size` characters of base64 wrapped at `width` (LF), decoding to pseudo-random printable ASCII: every line joins one block that decodes and is scanned again. */
function wrappedBase64OfPrintable(size, width) {
  const bytes = Buffer.alloc(Math.ceil((size * 3) / 4));
  let x = 12345;
  for (let i = 0; i < bytes.length; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    bytes[i] = 0x20 + ((x >>> 16) % 95);
  }
  const flat = bytes.toString("base64");
  const out = [];
  for (let i = 0; i < flat.length; i += width) out.push(flat.slice(i, i + width));
  return out.join("\n").slice(0, size);
}
/** `prefix` + `length` characters of `alphabet` (deterministic, no literal key ID in this file). */
const pairId = (prefix, k, alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", length = 16) =>
  prefix + Array.from({ length }, (_, i) => alphabet[(i * 7 + k * 11 + ((i * i) % 5)) % alphabet.length]).join("");
const lines = [
  ["repeated prefix ghp_", repeatTo("ghp_", LINE)],
  ["every prefix, each repeated, one line", prefixes.map((p) => repeatTo(p, Math.floor(LINE / prefixes.length))).join("").slice(0, LINE)],
  ["=", "=".repeat(LINE)],
  ["postgres://", repeatTo("postgres://", LINE)],
  ["postgres://user:password@ (placeholder each time)", repeatTo("postgres://user:password@", LINE)],
  ["random base64 (one run)", repeatTo(b64(Array.from({ length: 3000 }, (_, i) => String.fromCharCode((i * 7919) % 251)).join("")), LINE)],
  ["base64 of text, decodes to base64 again (QUFB…)", repeatTo("QUFB", LINE)],
  ["base64 of repeated ghp_ (decoded prefixes)", repeatTo(b64("ghp_ghp_ghp_"), LINE)],
  ["24-character base64 runs of user:… text", repeatTo(b64("user:ghp_abcdefghi") + " ", LINE)],
  ["percent escapes ghp%5F…", repeatTo("ghp%5F", LINE)],
  ["HTML/JSON escapes &#95;&lowbar;\\u005f", repeatTo("&#95;&lowbar;\\u005f", LINE)],
  ["percent-encoded percent %25%25…", repeatTo("%25", LINE)],
  ["&amp;amp;amp;…", "&" + repeatTo("amp;", LINE - 1)],
  ["escapes escaped twice ghp%255F&amp;#95;\\\\u005f", repeatTo("ghp%255F&amp;#95;\\\\u005f", LINE)],
  ["76-char base64 lines (coreutils) of random printable text", wrappedBase64OfPrintable(LINE, 76)],
  ["76-char base64 lines of binary, a gate (Z2hwX) in each", repeatTo(`Z2hwX${"/+9z".repeat(17)}zzz\n`, LINE)],
  ["60-char base64 lines, each line a block start then longer lines", repeatTo(`${"QUFB".repeat(15)}\n${"QUFB".repeat(16)}\n`, LINE)],
  // Line ends: lone CRs (a classic Mac OS file) become LF in normalisation (engine/normalize.ts), one
  // per code unit here; a key-block header on every line (putty-private-key looks for Private-Lines:
  // in the lines after each one).
  ["lone CRs (CR-only line ends, each line empty)", "\r".repeat(LINE)],
  ["PuTTY-User-Key-File-3: ssh-ed25519 on every line", repeatTo("PuTTY-User-Key-File-3: ssh-ed25519\n", LINE)],
  // The pair rules (rule-helpers/key-pair.ts, pair-search.ts): every ID looks for a secret nearby.
  // IDs ending in EXAMPLE are refused by aws-access-token (the pair search alone); valid IDs are an
  // aws-access-token finding each (fingerprint, position: ~48 000 findings per MB).
  ["AWS key IDs AKIA…EXAMPLE repeated", repeatTo(`${pairId("AKIA", 1, undefined, 9)}EXAMPLE `, LINE)],
  ["Twilio SIDs SK… repeated", repeatTo(`${pairId("SK", 2, "0123456789abcdef", 32)} `, LINE)],
  ["AWS key IDs after 40-char hex runs", repeatTo(`${pairId("", 3, "0123456789abcdef", 40)} ${pairId("AKIA", 4, undefined, 9)}EXAMPLE ${pairId("ASIA", 5, undefined, 9)}EXAMPLE `, LINE)],
  ["valid AWS key IDs AKIA… repeated (a finding each)", repeatTo(`${pairId("AKIA", 6)} `, LINE)],
];
const markdownLine = corpus.slice(0, LINE);
console.log(`\n5 MB single lines (issue 10), time per byte relative to 5 MB of Markdown as one string:\n`);
console.log(`| input | teammem-scan MB/s | × Markdown per byte |`);
console.log(`|---|---:|---:|`);
for (const [name, text] of lines) {
  if (LINE_FILTERS.length > 0 && !LINE_FILTERS.some((f) => name.includes(f))) continue;
  scan(text.slice(0, 1e5));
  let mdMs = Infinity;
  let advMs = Infinity;
  for (let k = 0; k < 3; k++) {
    mdMs = Math.min(mdMs, best(() => scan(markdownLine), 1));
    advMs = Math.min(advMs, best(() => scan(text), 1));
  }
  const ratio = advMs / bytes(text) / (mdMs / bytes(markdownLine));
  console.log(`| ${name} | ${fmt(mbps(bytes(text), advMs))} | ${ratio.toFixed(2)} |`);
}

if (!LINES_ONLY) {
// ---- per-prefix worst cases (guides rule authors: cost per attempt × attempts)
const SMALL = 2 ** 18;
const baseMs = best(() => scan(corpus.slice(0, SMALL)), 5);
const worst = [];
for (const p of prefixes) {
  for (const [kind, text] of [
    ["repeated", repeatTo(p, SMALL)],
    ["repeated with -", repeatTo(p + "a-", SMALL)],
    ["+ token run", p + repeatTo("aB3xZ9", SMALL - p.length)],
  ]) {
    worst.push([p, kind, best(() => scan(text), 3) / baseMs]);
  }
}
worst.sort((a, b) => b[2] - a[2]);
console.log(`\nSlowest prefixes (256 KiB inputs, time relative to Markdown of the same size):\n`);
console.log(`| prefix | input | × Markdown |`);
console.log(`|---|---|---:|`);
for (const [p, kind, r] of worst.slice(0, 10)) console.log(`| \`${p}\` | ${kind} | ${r.toFixed(1)} |`);
}
