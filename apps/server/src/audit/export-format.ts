/**
 * The two export formats of the audit log, one batch of events at a time: JSON Lines (one
 * AuditEvent per line) and CSV (RFC 4180, by csv-stringify; a header row first).
 */
import type { AuditEvent } from "@teammem/protocol";
import { stringify } from "csv-stringify/sync";

export type ExportFormat = "csv" | "jsonl";

/** Column order of the CSV: every AuditEvent field, then two conveniences drawn from `findings`. */
const FIELDS = [
  "id",
  "kind",
  "createdAt",
  "actor",
  "namespace",
  "path",
  "clientId",
  "code",
  "findings",
  "fingerprintKeyId",
  "tokenId",
  "targetUser",
  "role",
  "previousRole",
  "version",
  "resultVersion",
  "conflictId",
  "bypassId",
  "reason",
  "reasonText",
  "note",
  "policy",
  "previousPolicy",
  "count",
  "remoteAddress",
  "periodStart",
  "periodEnd",
  "epoch",
  "previousEpoch",
] as const satisfies readonly (keyof AuditEvent)[];
const COLUMNS = [...FIELDS, "ruleIds", "fingerprints"];

/** A cell a spreadsheet would run as a formula (OWASP "CSV injection") gets a leading quote. */
function cell(value: unknown): string {
  if (value === null || value === undefined) return "";
  const text = typeof value === "string" ? value : typeof value === "number" ? String(value) : JSON.stringify(value);
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

function csvRecord(e: AuditEvent): string[] {
  const findings = e.findings ?? [];
  return [
    ...FIELDS.map((f) => cell(e[f])),
    cell(findings.map((f) => f.ruleId).join(";")),
    cell(findings.flatMap((f) => (f.fingerprint ? [f.fingerprint] : [])).join(";")),
  ];
}

export const CONTENT_TYPES: Record<ExportFormat, string> = {
  csv: "text/csv; charset=utf-8",
  jsonl: "application/x-ndjson; charset=utf-8",
};

/** What goes before the first batch: the CSV header row, or nothing. */
export function exportHead(format: ExportFormat): string {
  return format === "csv" ? stringify([COLUMNS]) : "";
}

/** One batch of events in `format`, ending with a line break. */
export function exportBatch(format: ExportFormat, events: readonly AuditEvent[]): string {
  if (format === "csv") return stringify(events.map(csvRecord));
  return events.map((e) => JSON.stringify(e) + "\n").join("");
}
