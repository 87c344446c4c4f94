#!/usr/bin/env node
// Conformance over the peer corpus (gitleaks and secretlint test cases):
//   node packages/scanner/bench/conformance.mjs [path/to/peer.jsonl] [--verbose]
// default path: ../shared/corpus/secrets/peer.jsonl relative to the repository root. Needs dist/ (tsc -b).
// Prints recall on expect=secret cases and false positives on expect=clean cases, per source and per
// upstream rule. A case is "covered" when the catalog has a rule with the upstream rule's id (gitleaks
// ids are reused) or when we find it anyway. Only case ids and rule ids are printed, never texts.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { RULES, scan } from "../dist/index.js";

const args = process.argv.slice(2);
const verbose = args.includes("--verbose");
const path = args.find((a) => !a.startsWith("--")) ?? fileURLToPath(new URL("../../../../shared/corpus/secrets/peer.jsonl", import.meta.url));
const cases = readFileSync(path, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
const ourIds = new Set(RULES.map((r) => r.id));

const bySource = new Map();
const byRule = new Map();
const missedCovered = [];
const falsePositives = [];
const bump = (map, key, field) => {
  const row = map.get(key) ?? { secret: 0, found: 0, covered: 0, coveredFound: 0, clean: 0, fp: 0 };
  row[field]++;
  map.set(key, row);
  return row;
};
for (const c of cases) {
  const findings = scan(c.text);
  const hit = findings.length > 0;
  const covered = ourIds.has(c.rule) || hit;
  for (const [map, key] of [[bySource, c.source], [byRule, `${c.source}:${c.rule}`]]) {
    if (c.expect === "secret") {
      bump(map, key, "secret");
      if (hit) bump(map, key, "found");
      if (covered) bump(map, key, "covered");
      if (covered && hit) bump(map, key, "coveredFound");
    } else {
      bump(map, key, "clean");
      if (hit) bump(map, key, "fp");
    }
  }
  if (c.expect === "secret" && covered && !hit) missedCovered.push(c.id);
  if (c.expect === "clean" && hit) falsePositives.push(`${c.id} → ${[...new Set(findings.map((f) => f.ruleId))].join(",")}`);
}

const pct = (a, b) => (b === 0 ? "–" : `${((100 * a) / b).toFixed(1)}%`);
console.log(`# Conformance on ${path.split("/").slice(-3).join("/")} (${cases.length} cases, ${RULES.length} rules)\n`);
console.log(`| source | secret cases | found | recall | covered | found of covered | clean cases | false positives |`);
console.log(`|---|---:|---:|---:|---:|---:|---:|---:|`);
const total = { secret: 0, found: 0, covered: 0, coveredFound: 0, clean: 0, fp: 0 };
for (const [src, r] of bySource) {
  for (const k of Object.keys(total)) total[k] += r[k];
  console.log(`| ${src} | ${r.secret} | ${r.found} | ${pct(r.found, r.secret)} | ${r.covered} | ${pct(r.coveredFound, r.covered)} | ${r.clean} | ${r.fp} |`);
}
const t = total;
console.log(`| **all** | ${t.secret} | ${t.found} | ${pct(t.found, t.secret)} | ${t.covered} | ${pct(t.coveredFound, t.covered)} | ${t.clean} | ${t.fp} |`);

console.log(`\nMissed cases whose upstream rule id is in our catalog (${missedCovered.length}):`);
for (const id of missedCovered) console.log(`- ${id}`);
console.log(`\nFalse positives on expect=clean cases (${falsePositives.length}):`);
for (const fp of falsePositives) console.log(`- ${fp}`);
if (verbose) {
  console.log(`\n| upstream rule | secret | found | clean | FP |\n|---|---:|---:|---:|---:|`);
  for (const [rule, r] of [...byRule].sort()) console.log(`| ${rule}${ourIds.has(rule.split(":").slice(1).join(":")) ? "" : " (no rule of ours with this id)"} | ${r.secret} | ${r.found} | ${r.clean} | ${r.fp} |`);
}
