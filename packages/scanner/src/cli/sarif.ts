/**
 * SARIF 2.1.0 output of `teammem-scan --format sarif`, for code-scanning tools.
 * Spec: OASIS "Static Analysis Results Interchange Format (SARIF) Version 2.1.0"
 * (https://docs.oasis-open.org/sarif/sarif/v2.1.0/sarif-v2.1.0.html).
 */
import { relative, resolve, sep } from "node:path";
import type { Finding, Rule } from "../rule.js";

/**
 * One finding of one input; `path` is the display path ("-" for stdin), already redacted; `inPath`
 * when the finding is in the path itself (its columns then count in the path, not in the file).
 */
export interface PathFinding {
  readonly path: string;
  readonly finding: Finding;
  readonly inPath?: boolean;
}

/** SARIF artifact URI of a display path: relative to `cwd`, forward slashes, percent-encoded; stdin → "stdin". */
function sarifUri(path: string, cwd: string): string {
  if (path === "-") return "stdin";
  const rel = relative(cwd, resolve(cwd, path)) || path;
  return encodeURI(rel.split(sep).join("/"));
}

/**
 * SARIF 2.1.0 log of `results` with every rule that ran in `tool.driver.rules`; each result carries
 * its region (1-based, end column exclusive) and the keyed fingerprint as `partialFingerprints`.
 */
export function toSarif(results: readonly PathFinding[], rules: readonly Rule[], cwd: string, version = "0.1.0"): object {
  const index = new Map(rules.map((r, i) => [r.id, i]));
  return {
    $schema: "https://json.schemastore.org/sarif-2.1.0.json",
    version: "2.1.0",
    runs: [
      {
        tool: {
          driver: {
            name: "teammem-scan",
            version,
            rules: rules.map((r) => ({
              id: r.id,
              name: r.id,
              shortDescription: { text: r.label },
              defaultConfiguration: { level: "error" },
            })),
          },
        },
        results: results.map(({ path, finding: f, inPath }) => ({
          ruleId: f.ruleId,
          ruleIndex: index.get(f.ruleId) ?? -1,
          level: "error",
          message: { text: `${f.label} (${f.preview}${f.encoding ? `, ${f.encoding}-encoded` : ""})${inPath ? " in the file's path" : ""}` },
          locations: [
            {
              physicalLocation: {
                artifactLocation: { uri: sarifUri(path, cwd) },
                // A finding in the path has no region in the file (SARIF: the location is the whole artifact).
                ...(!inPath && { region: { startLine: f.line, startColumn: f.column, endLine: f.endLine, endColumn: f.endColumn } }),
              },
            },
          ],
          partialFingerprints: { "teammemFingerprint/v1": f.fingerprint },
          ...(f.encoding !== undefined && { properties: { encoding: f.encoding } }),
        })),
      },
    ],
  };
}
