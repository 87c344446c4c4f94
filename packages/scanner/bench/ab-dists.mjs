#!/usr/bin/env node
// A/B of two built scanners (two `dist/` folders) in ONE process, for a machine shared with other
// work, where MB/s from separate runs swing 2x: the Markdown corpus of bench.mjs (README*/CHANGELOG*
// .md of node_modules, repeated to --mb MB, default 10) is cut into ~0.5 MB slices of whole files;
// each round scans every slice with A and with B (order alternating), file by file; per slice the
// minimum time of each side is kept, and the sums compared (a slice scanned once without
// interference is enough). Also prints the median of the per-pair ratios. First checks that both
// give the same findings on every file.
//
//   cp -r packages/scanner/dist /tmp/scanner-dist-old      # before changing anything
//   ... change, npx tsc -b ...
//   node packages/scanner/bench/ab-dists.mjs /tmp/scanner-dist-old packages/scanner/dist [--rounds 20] [--no-decode]
//
// A copied dist needs node_modules next to a parent folder of it (zod): `ln -s $PWD/node_modules /tmp/node_modules`.
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { mb: { type: "string" }, rounds: { type: "string" }, "no-decode": { type: "boolean" } },
});
if (positionals.length !== 2) {
  console.error("usage: node ab-dists.mjs DIST_A DIST_B [--mb N] [--rounds N] [--no-decode]");
  process.exit(2);
}
const load = async (dir) => (await import(pathToFileURL(join(resolve(dir), "index.js")).href)).scan;
const [scanA, scanB] = [await load(positionals[0]), await load(positionals[1])];
const options = values["no-decode"] ? { decode: false } : {};
const rounds = Number(values.rounds ?? 20);
const targetBytes = Number(values.mb ?? 10) * 1e6;

const root = fileURLToPath(new URL("../../../", import.meta.url));
function markdownFiles(dir, out = []) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.isDirectory()) markdownFiles(p, out);
    else if (e.isFile() && /^(readme|changelog).*\.md$/i.test(e.name)) out.push(p);
  }
  return out;
}
const docs = markdownFiles(join(root, "node_modules")).sort().map((f) => readFileSync(f, "utf8"));
const corpus = [];
let corpusBytes = 0;
while (corpusBytes < targetBytes) {
  for (const d of docs) {
    corpus.push(d);
    corpusBytes += Buffer.byteLength(d);
    if (corpusBytes >= targetBytes) break;
  }
}

let differing = 0;
for (const d of docs) if (JSON.stringify(scanA(d, options)) !== JSON.stringify(scanB(d, options))) differing++;
console.log(`${docs.length} files, ${differing} with different findings`);

const slices = [];
for (let i = 0, size = 0, slice = []; i < corpus.length; i++) {
  slice.push(corpus[i]);
  size += corpus[i].length;
  if (size > 5e5 || i === corpus.length - 1) {
    slices.push(slice);
    slice = [];
    size = 0;
  }
}
const time = (scan, slice) => {
  const t0 = performance.now();
  for (const d of slice) scan(d, options);
  return performance.now() - t0;
};
for (let k = 0; k < 2; k++) {
  for (const s of slices) {
    time(scanA, s); // warm-up
    time(scanB, s);
  }
}
const minA = slices.map(() => Infinity);
const minB = slices.map(() => Infinity);
const ratios = [];
for (let r = 0; r < rounds; r++) {
  slices.forEach((s, i) => {
    let a;
    let b;
    if ((r + i) % 2 === 0) {
      a = time(scanA, s);
      b = time(scanB, s);
    } else {
      b = time(scanB, s);
      a = time(scanA, s);
    }
    minA[i] = Math.min(minA[i], a);
    minB[i] = Math.min(minB[i], b);
    ratios.push(a / b);
  });
}
const sum = (xs) => xs.reduce((x, y) => x + y, 0);
const mbps = (ms) => (corpusBytes / 1e6 / (ms / 1000)).toFixed(0);
ratios.sort((x, y) => x - y);
console.log(`A ${positionals[0]}: ${sum(minA).toFixed(1)} ms (${mbps(sum(minA))} MB/s)`);
console.log(`B ${positionals[1]}: ${sum(minB).toFixed(1)} ms (${mbps(sum(minB))} MB/s)`);
console.log(`A/B: ${(sum(minA) / sum(minB)).toFixed(3)} (sum of per-slice minima; > 1: B faster), median pair ratio ${ratios[ratios.length >> 1].toFixed(3)} (${ratios.length} pairs)`);
