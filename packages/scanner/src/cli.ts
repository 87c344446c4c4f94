#!/usr/bin/env node
/**
 * `teammem-scan [options] <paths...>`: scans files, folders (recursively, skipping binary files and
 * `.git`/`node_modules`) or `-` (stdin) for credentials.
 *
 * Options: `--format text|json|sarif` (default text: `path:line:column ruleId label`), `--redact`
 * (print the inputs with findings replaced by `[REDACTED:<ruleId>]`), `--config <file>` (JSON, see
 * config.ts; default `.teammem-scan.json` in the current folder when present), `--key-file <file>`
 * (fingerprint key, created if missing; default `$TEAMMEM_SCAN_KEY_FILE` or
 * `~/.config/teammem/fingerprint-key`), `--help`.
 * Exit status: 0 nothing found, 1 findings, 2 usage or I/O error (message on stderr).
 * Start-up stays light: zod (config validation) is only imported when a config file is used.
 * Secret values are never printed: findings carry positions, fingerprint and masked preview only.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join, relative, sep } from "node:path";
import { parseArgs } from "node:util";
import type { Finding, Rule } from "./rule.js";
import { RULES } from "./rules/index.js";
import { redact, scan, type ScanOptions } from "./scan.js";
import { loadFingerprintKey } from "./fingerprint.js";

const USAGE = `usage: teammem-scan [--format text|json|sarif] [--redact] [--config FILE] [--key-file FILE] <paths...|->
  Scans files, folders (recursive; skips binary files, .git and node_modules) or stdin (-) for credentials.
  Exit status: 0 clean, 1 findings, 2 usage or I/O error.`;

const SKIPPED_DIRS = new Set([".git", "node_modules"]);

interface Input {
  /** Display path (as given, or joined under a given folder); "-" for stdin. */
  readonly path: string;
  readonly text: string;
}

class UsageError extends Error {}

/** Is `buf` binary? (a NUL byte in its first 8 KiB, like git's heuristic) */
function isBinary(buf: Buffer): boolean {
  return buf.subarray(0, 8192).includes(0);
}

/** Expands `arg` into inputs; pushes I/O problems to `errors`. */
function collect(arg: string, inputs: Input[], errors: string[]): void {
  if (arg === "-") {
    try {
      inputs.push({ path: "-", text: readFileSync(0, "utf8") });
    } catch (e) {
      errors.push(`-: cannot read stdin (${(e as NodeJS.ErrnoException).code ?? "error"})`);
    }
    return;
  }
  let st;
  try {
    st = statSync(arg); // a path named on the command line is followed if it is a link
  } catch (e) {
    errors.push(`${arg}: ${(e as NodeJS.ErrnoException).code === "ENOENT" ? "no such file or folder" : "cannot read"}`);
    return;
  }
  if (st.isDirectory()) {
    walk(arg, inputs, errors);
    return;
  }
  // A FIFO, socket or device could block the scan forever or never end: refuse it.
  if (!st.isFile()) {
    errors.push(`${arg}: not a regular file or folder`);
    return;
  }
  readInto(arg, inputs, errors, true);
}

function readInto(path: string, inputs: Input[], errors: string[], explicit: boolean): void {
  try {
    const buf = readFileSync(path);
    if (isBinary(buf)) {
      if (explicit) process.stderr.write(`${path}: binary file skipped\n`);
      return;
    }
    inputs.push({ path, text: buf.toString("utf8") });
  } catch (e) {
    errors.push(`${path}: cannot read (${(e as NodeJS.ErrnoException).code ?? "error"})`);
  }
}

/** Recursive folder walk in name order; symbolic links are not followed. */
function walk(dir: string, inputs: Input[], errors: string[]): void {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (e) {
    errors.push(`${dir}: cannot list (${(e as NodeJS.ErrnoException).code ?? "error"})`);
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      if (!SKIPPED_DIRS.has(e.name)) walk(p, inputs, errors);
    } else if (e.isFile()) readInto(p, inputs, errors, false);
  }
}

/** SARIF artifact URI of a display path: forward slashes, percent-encoded; stdin → "stdin". */
function sarifUri(path: string): string {
  if (path === "-") return "stdin";
  const rel = relative(process.cwd(), path) || path;
  return encodeURI(rel.split(sep).join("/"));
}

/** SARIF 2.1.0 log of `results` with every rule that ran in `tool.driver.rules`. */
export function toSarif(results: { path: string; finding: Finding }[], rules: readonly Rule[], version = "0.1.0"): object {
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
        results: results.map(({ path, finding: f }) => ({
          ruleId: f.ruleId,
          ruleIndex: index.get(f.ruleId) ?? -1,
          level: "error",
          message: { text: `${f.label} (${f.preview})` },
          locations: [
            {
              physicalLocation: {
                artifactLocation: { uri: sarifUri(path) },
                region: { startLine: f.line, startColumn: f.column, endLine: f.endLine, endColumn: f.endColumn },
              },
            },
          ],
          partialFingerprints: { "teammemFingerprint/v1": f.fingerprint },
        })),
      },
    ],
  };
}

function defaultKeyFile(): string {
  return process.env["TEAMMEM_SCAN_KEY_FILE"] ?? join(process.env["XDG_CONFIG_HOME"] ?? join(homedir(), ".config"), "teammem", "fingerprint-key");
}

/** Runs the CLI with `argv` (without node and script); returns the exit status. Writes to stdout/stderr. */
export async function main(argv: readonly string[]): Promise<number> {
  let values: { format?: string; redact?: boolean; config?: string; "key-file"?: string; help?: boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        format: { type: "string", short: "f" },
        redact: { type: "boolean" },
        config: { type: "string", short: "c" },
        "key-file": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (e) {
    process.stderr.write(`teammem-scan: ${(e as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(USAGE + "\n");
    return 0;
  }
  try {
    const format = values.format ?? "text";
    if (!["text", "json", "sarif"].includes(format)) throw new UsageError(`unknown --format ${format} (text, json or sarif)`);
    if (positionals.length === 0) throw new UsageError("no paths given (use - for stdin)");
    if (values.redact && values.format !== undefined && format !== "text") {
      throw new UsageError(`--redact prints the redacted text; it cannot be combined with --format ${format}`);
    }
    const keyFile = values["key-file"];
    if (keyFile !== undefined && !existsSync(keyFile)) {
      // Only the default key is created on first use: a mistyped --key-file would silently change
      // every fingerprint and void the allowlist.
      throw new UsageError(`--key-file ${keyFile}: no such file (omit --key-file to use the default key, created on first use)`);
    }

    const configPath = values.config ?? (existsSync(".teammem-scan.json") ? ".teammem-scan.json" : undefined);
    let customRules: readonly Rule[] = [];
    let allowFingerprints: readonly string[] = [];
    if (configPath !== undefined) {
      const { loadConfig } = await import("./config.js");
      ({ customRules, allowFingerprints } = loadConfig(configPath));
    }
    const options: ScanOptions = {
      customRules,
      allowFingerprints,
      fingerprintKey: loadFingerprintKey(keyFile ?? defaultKeyFile()),
    };

    const inputs: Input[] = [];
    const errors: string[] = [];
    for (const p of positionals) collect(p, inputs, errors);

    const results: { path: string; finding: Finding }[] = [];
    const out: string[] = [];
    for (const input of inputs) {
      if (values.redact) {
        const redacted = redact(input.text, options);
        if (redacted !== input.text) results.push(...scan(input.text, options).map((finding) => ({ path: input.path, finding })));
        out.push(inputs.length > 1 ? `==> ${input.path} <==\n${redacted}` : redacted);
        continue;
      }
      for (const finding of scan(input.text, options)) results.push({ path: input.path, finding });
    }

    if (values.redact) process.stdout.write(out.join(inputs.length > 1 ? "\n" : ""));
    else if (format === "text") {
      process.stdout.write(results.map(({ path, finding: f }) => `${path}:${f.line}:${f.column} ${f.ruleId} ${f.label}\n`).join(""));
    } else if (format === "json") {
      const rows = results.map(({ path, finding: f }) => ({
        path,
        ruleId: f.ruleId,
        label: f.label,
        line: f.line,
        column: f.column,
        endLine: f.endLine,
        endColumn: f.endColumn,
        fingerprint: f.fingerprint,
        preview: f.preview,
      }));
      process.stdout.write(JSON.stringify(rows, null, 2) + "\n");
    } else {
      process.stdout.write(JSON.stringify(toSarif(results, [...RULES, ...customRules]), null, 2) + "\n");
    }
    for (const e of errors) process.stderr.write(`teammem-scan: ${e}\n`);
    if (errors.length > 0) return 2;
    return results.length > 0 ? 1 : 0;
  } catch (e) {
    const usage = e instanceof UsageError;
    process.stderr.write(`teammem-scan: ${(e as Error).message}\n${usage ? USAGE + "\n" : ""}`);
    return 2;
  }
}

// The bin entry: runs on import (the npm launcher bin/teammem-scan.js imports this module).
main(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (e: unknown) => {
    process.stderr.write(`teammem-scan: ${(e as Error).message}\n`);
    process.exitCode = 2;
  },
);
