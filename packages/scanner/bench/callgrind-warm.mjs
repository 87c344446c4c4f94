#!/usr/bin/env node
// Instruction counts of warm, JIT-compiled scans of the bench's Markdown corpus (a loaded machine's
// wall time is noise; instruction counts are not): `--warm` passes over every file outside the
// count, then `--passes` passes inside `vm.runInThisContext`, the only code callgrind collects with
//
//   valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.main \
//     --toggle-collect='node::contextify::ContextifyScript::RunInContext*' \
//     node packages/scanner/bench/callgrind-warm.mjs DIST_DIR [CORPUS_DIR] [--warm 5] [--passes 3]
//
// then `callgrind_annotate /tmp/cg.main | head` ("PROGRAM TOTALS"). CORPUS_DIR: its `.md` files
// (e.g. /work/shared/corpus); default the README*/CHANGELOG* `.md` files of node_modules, as
// bench.mjs and ab-dists.mjs. Run it on main's dist (a copy) and on yours: same corpus, same
// passes; prints files, bytes and findings (they must agree unless findings changed).
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import vm from "node:vm";

const { values, positionals } = parseArgs({ allowPositionals: true, options: { warm: { type: "string" }, passes: { type: "string" } } });
if (positionals.length < 1 || positionals.length > 2) {
  console.error("usage: node callgrind-warm.mjs DIST_DIR [CORPUS_DIR] [--warm N] [--passes N]");
  process.exit(2);
}
const { scan } = await import(pathToFileURL(join(resolve(positionals[0]), "index.js")).href);

// `top`: node_modules of a worktree is a folder of symlinks to main's packages (followed there
// only, and not into the workspace links of @teammem), so both list the same files.
function markdownFiles(dir, keep, out = [], top = false) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const p = join(dir, e.name);
    if (e.isDirectory() || (top && e.isSymbolicLink() && e.name !== "@teammem" && statSync(p).isDirectory())) markdownFiles(p, keep, out);
    else if (e.isFile() && keep(e.name)) out.push(p);
  }
  return out;
}
const files =
  positionals[1] !== undefined
    ? markdownFiles(resolve(positionals[1]), (n) => n.endsWith(".md"))
    : markdownFiles(join(fileURLToPath(new URL("../../../", import.meta.url)), "node_modules"), (n) => /^(readme|changelog).*\.md$/i.test(n), [], true);
const texts = files.map((f) => readFileSync(f, "utf8"));
let findings = 0;
globalThis.__scanAll = () => {
  let n = 0;
  for (const t of texts) n += scan(t).length;
  return n;
};
for (let k = 0; k < Number(values.warm ?? 5); k++) findings = globalThis.__scanAll();
const passes = Number(values.passes ?? 3);
vm.runInThisContext(`for (let k = 0; k < ${passes}; k++) __scanAll();`);
const bytes = texts.reduce((n, t) => n + Buffer.byteLength(t), 0);
console.log(`${files.length} files, ${bytes} bytes, ${findings} findings per pass; ${passes} passes counted`);
