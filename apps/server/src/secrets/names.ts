/**
 * Credentials in names rather than content: an entry path (`team/AKIA…/notes.md`), a namespace
 * name, a client id, a URL. The scanner finds them like in content (line 1, column in the string);
 * whatever the server keeps or logs of such a name is redacted (`[REDACTED:<ruleId>]`).
 */
import { redact, scan } from "@teammem/scanner";

/** A finding in a name, for the audit log (keyed fingerprint) and, without it, for the reply. */
export interface NameFinding {
  ruleId: string;
  label: string;
  line: number;
  column: number;
  fingerprint: string;
}

/** Findings of the scanner in `text` (`teammem:allow` is not honoured in names). */
export function findSecretsInName(text: string, fingerprintKey: string): NameFinding[] {
  return scan(text, { fingerprintKey, allowMarker: false }).map((f) => ({
    ruleId: f.ruleId,
    label: f.label,
    line: f.line,
    column: f.column,
    fingerprint: f.fingerprint,
  }));
}

/** `text` with every credential replaced by `[REDACTED:<ruleId>]` (unchanged when clean). */
export function redactSecrets(text: string): string {
  return redact(text, { allowMarker: false });
}

/**
 * A request URL safe to log: credentials redacted, also when percent-encoded (`team%2FAKIA…` hides
 * a key from a scan of the raw URL). Clean URLs are returned unchanged.
 */
export function redactUrl(url: string): string {
  let decoded = url;
  try {
    decoded = decodeURIComponent(url);
  } catch {
    // malformed escapes: scan the raw form only
  }
  if (decoded !== url) {
    const redactedDecoded = redactSecrets(decoded);
    if (redactedDecoded !== decoded) return redactedDecoded;
  }
  return redactSecrets(url);
}

/** The rule ids of `findings`, each once, e.g. "aws-access-token, github-pat". */
export function ruleList(findings: readonly { ruleId: string }[]): string {
  return [...new Set(findings.map((f) => f.ruleId))].join(", ");
}
