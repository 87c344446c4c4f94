// Scans every `.md` file under a corpus directory once with the exported `scan` API of a built
// scanner, for instruction counts under callgrind (wall time is noise on a loaded machine):
//
//   valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.new node --jitless \
//     packages/scanner/bench/callgrind-corpus.mjs packages/scanner/dist /work/shared/corpus
//
// Run it once with the `dist/` of main (built in another worktree) and once with yours, and compare
// the "Collected" totals (`callgrind_annotate FILE | head`). `--load-only` loads the module and reads
// the files without scanning: subtract it from both to compare the scans alone. Prints the files,
// bytes and findings scanned (they must agree between the two dists unless findings changed).
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [distArg, corpusArg, flag] = process.argv.slice(2);
if (distArg === undefined || corpusArg === undefined) {
  console.error("usage: node callgrind-corpus.mjs DIST_DIR CORPUS_DIR [--load-only]");
  process.exit(2);
}
const { scan } = await import(pathToFileURL(join(resolve(distArg), "index.js")).href);
const files = [];
const walk = (dir) => {
  for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p);
    else if (e.name.endsWith(".md")) files.push(p);
  }
};
walk(resolve(corpusArg));
const texts = files.map((f) => readFileSync(f, "utf8"));
let findings = 0;
if (flag !== "--load-only") for (const t of texts) findings += scan(t).length;
console.log(`${files.length} files, ${texts.reduce((n, t) => n + Buffer.byteLength(t), 0)} bytes, ${findings} findings${flag === "--load-only" ? " (load only)" : ""}`);
