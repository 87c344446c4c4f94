/**
 * The findings of a client's block report as the audit log keeps them: rule id, position and
 * fingerprint (both shape-checked by the protocol), and the label FROM THE SCANNER CATALOG for a
 * known rule id (no label for a custom rule). The client's own label is free text and never stored.
 */
import { RULES } from "@teammem/scanner";
import type { AuditFinding, BlockReport } from "@teammem/protocol";
import { Refusal } from "../errors/refusal.js";
import { findSecretsInName } from "../secrets/names.js";

const CATALOG_LABELS: ReadonlyMap<string, string> = new Map(RULES.map((r) => [r.id, r.label]));

/**
 * @throws Refusal invalid_request (details.reason `secret_in_rule_id`) when a custom rule id
 *   itself holds a credential.
 */
export function blockReportFindings(findings: BlockReport["findings"], fingerprintKey: string): AuditFinding[] {
  return findings.map((f) => {
    const label = CATALOG_LABELS.get(f.ruleId);
    if (label === undefined && findSecretsInName(f.ruleId, fingerprintKey).length > 0) {
      throw new Refusal("invalid_request", "a finding's ruleId holds a credential", { reason: "secret_in_rule_id" });
    }
    return {
      ruleId: f.ruleId,
      ...(label !== undefined ? { label } : {}),
      line: f.line,
      column: f.column,
      ...(f.fingerprint !== undefined ? { fingerprint: f.fingerprint } : {}),
    };
  });
}
