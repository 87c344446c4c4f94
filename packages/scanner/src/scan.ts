// STUB ENGINE (walking-skeleton placeholder) — to be replaced by the linear-time engine.
import { createHmac } from "node:crypto";
import type { Finding, Rule } from "./rule.js";
import { RULES } from "./rules/index.js";

export interface ScanOptions {
  /** Rules to run; default: the whole catalog. */
  readonly rules?: readonly Rule[];
  /** Per-installation key for fingerprints; default: a fixed public key (fingerprints then only compare within one run). */
  readonly fingerprintKey?: string | Uint8Array;
}

function lineCol(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

/** Finds credentials in `text`, in order of position. */
export function scan(text: string, options: ScanOptions = {}): Finding[] {
  const rules = options.rules ?? RULES;
  const key = options.fingerprintKey ?? "teammem-default-fingerprint-key";
  const findings: { start: number; end: number; rule: Rule; value: string; prefix: string }[] = [];
  for (const rule of rules) {
    for (const prefix of rule.prefixes) {
      for (let p = text.indexOf(prefix); p !== -1; p = text.indexOf(prefix, p + 1)) {
        const re = new RegExp(rule.pattern.source, rule.pattern.flags.includes("y") ? rule.pattern.flags : rule.pattern.flags + "y");
        re.lastIndex = p;
        const m = re.exec(text);
        if (!m) continue;
        const value = m.groups?.["secret"] ?? m[0];
        if (rule.validate && !rule.validate(value)) continue;
        findings.push({ start: m.index, end: m.index + m[0].length, rule, value, prefix });
      }
    }
  }
  findings.sort((a, b) => a.start - b.start);
  return findings.map((f) => {
    const s = lineCol(text, f.start);
    const e = lineCol(text, f.end);
    return {
      ruleId: f.rule.id,
      label: f.rule.label,
      line: s.line,
      column: s.column,
      endLine: e.line,
      endColumn: e.column,
      fingerprint: createHmac("sha256", key).update(f.value).digest("hex").slice(0, 32),
      preview: f.prefix + "****",
    };
  });
}
