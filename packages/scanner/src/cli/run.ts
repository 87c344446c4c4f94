/**
 * The `teammem-scan` command line as a function: `run(argv, env, io, cwd)` parses `argv` (without
 * node and script), scans files, folders (recursively, see inputs.ts) or `-` (stdin) for credentials,
 * writes the report to `io.stdout` and diagnostics to `io.stderr`, and returns the exit status:
 * 0 nothing found, 1 findings, 2 usage or I/O error (message on stderr), 3 no findings but an input
 * was not scanned (binary, larger than 64 MiB, or a symbolic link, FIFO, socket or device in a folder;
 * named on stderr). Each path is scanned too: a credential in a file or folder name is a finding
 * (`path: path holds ruleId label`), and every path is shown with its credentials redacted.
 * Tests call it in-process; `../cli.ts` (the bin) calls it with the real process. It never exits
 * the process and reads no global state other than through its arguments.
 *
 * Options: `--format text|json|sarif` (default text: `path:line:column ruleId label`), `--redact`
 * (print the inputs with findings replaced by `[REDACTED:<ruleId>]`), `--config <file>` (JSON, see
 * config.ts; default `.teammem-scan.json` in `cwd` when present, named on stderr with what it
 * allowlists and adds), `--no-config` (ignore `.teammem-scan.json`), `--key-file <file>`
 * (fingerprint key, must exist: 64 hex characters, e.g. the team's key, or a teammem client's
 * `.teammem/scan-policy.json`; default `$TEAMMEM_SCAN_KEY_FILE` or `~/.config/teammem/fingerprint-key`,
 * created on first use), `--help`, `--version`. An option that takes a value may be given once.
 * Start-up stays light: zod (config validation) is only imported when a config file is used.
 * Secret values are never printed: findings carry positions, fingerprint and masked preview only;
 * every message on stderr has its credentials redacted (a path, a mistyped argument).
 */
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import type { Rule } from "../rule.js";
import { RULES } from "../rules/index.js";
import { redact, scan, type ScanOptions } from "../scan.js";
import { FingerprintKeyError, loadFingerprintKey } from "../fingerprint.js";
import { escapeControls } from "../escape-controls.js";
import { collectInputs } from "./inputs.js";
import { toSarif, type PathFinding } from "./sarif.js";
import { readAtMost, type SmallFile } from "../small-file.js";

const USAGE = `usage: teammem-scan [--format text|json|sarif] [--redact] [--config FILE | --no-config] [--key-file FILE] <paths...|->
       teammem-scan --version | --help
  Scans files, folders (recursive; skips .git and node_modules) or stdin (-) for credentials.
  UTF-8 and UTF-16 with a byte order mark are read; binary files and files over 64 MiB are not scanned.
  --config FILE: allowlisted fingerprints and custom rules (default: .teammem-scan.json in the
  current folder when present, named on stderr; --no-config ignores it).
  --key-file FILE: the fingerprint key: 64 hex characters (your team's key, so fingerprints match
  the audit log and teammem status), or a teammem memory folder's .teammem/scan-policy.json.
  Exit status: 0 clean, 1 findings, 2 usage, config, key or I/O error (an unreadable path),
  3 no findings but an input was not scanned (binary, too large, a symbolic link or
  special file in a folder; each named on stderr). A credential in a path is a finding;
  paths are printed with credentials redacted.`;

/** stdout carries the report, stderr diagnostics; stdin is read only for the path `-`. */
export interface Io {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Reads stdin until its end or until more than `maxBytes` bytes came: the bytes, or `"too-large"`. */
  readStdin(maxBytes: number): SmallFile;
}

export const processIo: Io = {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
  readStdin: (maxBytes) => readAtMost(0, maxBytes),
};

/** Exit status when nothing was found but an input was not scanned (binary, too large): never 0 for "not looked at". */
export const EXIT_NOT_SCANNED = 3;

type Env = Readonly<Record<string, string | undefined>>;

class UsageError extends Error {}

/** This package's version: its package.json is two folders above both src/cli/ and dist/cli/. */
function packageVersion(): string {
  return (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version;
}

/** An environment variable's value, with an empty one read as unset (as the XDG base directory spec does). */
const envValue = (env: Env, name: string): string | undefined => (env[name] === "" ? undefined : env[name]);

function defaultKeyFile(env: Env): string {
  return envValue(env, "TEAMMEM_SCAN_KEY_FILE") ?? join(envValue(env, "XDG_CONFIG_HOME") ?? join(envValue(env, "HOME") ?? homedir(), ".config"), "teammem", "fingerprint-key");
}

interface Values {
  format?: string;
  redact?: boolean;
  config?: string;
  "no-config"?: boolean;
  "key-file"?: string;
  help?: boolean;
  version?: boolean;
}

/** Where the config file came from, for the notice on stderr. */
const CONFIG_FOUND = "found in the current folder; --no-config ignores it";

/**
 * Parses `argv`. @throws the parser's error (unknown option, missing value) or UsageError for an
 * option that takes a value given twice (`--format json --format text`: which one was meant?).
 */
function parse(argv: readonly string[]): { values: Values; positionals: string[] } {
  const { values, positionals, tokens } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    tokens: true,
    options: {
      format: { type: "string", short: "f" },
      redact: { type: "boolean" },
      config: { type: "string", short: "c" },
      "no-config": { type: "boolean" },
      "key-file": { type: "string" },
      help: { type: "boolean", short: "h" },
      version: { type: "boolean", short: "V" },
    },
  });
  const seen = new Set<string>();
  for (const t of tokens) {
    if (t.kind !== "option" || t.value === undefined) continue;
    if (seen.has(t.name)) throw new UsageError(`--${t.name} given more than once: give it once`);
    seen.add(t.name);
  }
  return { values, positionals };
}

/**
 * Runs `teammem-scan` with `argv` (without node and script). Relative paths (inputs, `--config`,
 * `--key-file`) resolve against `cwd`; `env` supplies `TEAMMEM_SCAN_KEY_FILE`, `XDG_CONFIG_HOME`
 * and `HOME`. Never throws: every failure is a message on `io.stderr` and exit status 2.
 * @returns the exit status (0 clean, 1 findings, 2 usage or I/O error, 3 an input not scanned).
 */
export async function run(argv: readonly string[], env: Env = process.env, io: Io = processIo, cwd: string = process.cwd()): Promise<number> {
  let values: Values;
  let positionals: string[];
  try {
    ({ values, positionals } = parse(argv));
  } catch (e) {
    io.stderr(`teammem-scan: ${redact((e as Error).message)}\n${USAGE}\n`);
    return 2;
  }
  if (values.help) {
    io.stdout(USAGE + "\n");
    return 0;
  }
  if (values.version) {
    io.stdout(packageVersion() + "\n");
    return 0;
  }
  try {
    return await scanPaths(values, positionals, env, io, cwd);
  } catch (e) {
    const usage = e instanceof UsageError;
    io.stderr(`teammem-scan: ${redact((e as Error).message)}\n${usage ? USAGE + "\n" : ""}`);
    return 2;
  }
}

async function scanPaths(values: Values, positionals: readonly string[], env: Env, io: Io, cwd: string): Promise<number> {
  const format = values.format ?? "text";
  if (!["text", "json", "sarif"].includes(format)) throw new UsageError(`unknown --format ${format} (text, json or sarif)`);
  if (positionals.length === 0) throw new UsageError("no paths given (use - for stdin)");
  if (values.redact && values.format !== undefined && format !== "text") {
    throw new UsageError(`--redact prints the redacted text; it cannot be combined with --format ${format}`);
  }
  if (values["no-config"] && values.config !== undefined) throw new UsageError("--config and --no-config contradict each other: give one");
  // An empty value would resolve to the current folder: refused by name (try14 F14).
  for (const flag of ["key-file", "config"] as const) if (values[flag] !== undefined && values[flag].trim() === "") throw new UsageError(`empty --${flag}: give a file path`);
  const keyFile = values["key-file"];
  if (keyFile !== undefined && !existsSync(resolve(cwd, keyFile))) {
    // Only the default key is created on first use: a mistyped --key-file would silently change
    // every fingerprint and void the allowlist.
    throw new FingerprintKeyError("key_file_missing", resolve(cwd, keyFile), "no such file (only the default key is created on first use)");
  }

  const found = !values["no-config"] && values.config === undefined && existsSync(join(cwd, ".teammem-scan.json"));
  const configPath = values.config ?? (found ? ".teammem-scan.json" : undefined);
  let customRules: readonly Rule[] = [];
  let allowFingerprints: readonly string[] = [];
  if (configPath !== undefined) {
    const { loadConfig } = await import("../config.js");
    const at = resolve(cwd, configPath);
    ({ customRules, allowFingerprints } = loadConfig(at));
    // A config in a cloned repository changes what is reported: never silently.
    io.stderr(`teammem-scan: ${redact(configNotice(at, found ? CONFIG_FOUND : "--config", allowFingerprints.length, customRules.length))}\n`);
  }
  const options: ScanOptions = {
    customRules,
    allowFingerprints,
    fingerprintKey: loadFingerprintKey(resolve(cwd, keyFile ?? defaultKeyFile(env))),
  };

  const { inputs, errors, notScanned } = collectInputs(positionals, { cwd, readStdin: io.readStdin });
  // A path is scanned like a text and shown with its credentials redacted everywhere (stdout, stderr,
  // JSON, SARIF), as the teammem client shows team paths: a file named after a token must not print it.
  const shown = (path: string): string => (path === "-" ? path : redact(path, options));
  const pathFindings = (path: string): PathFinding[] => (path === "-" ? [] : scan(path, options).map((finding) => ({ path: shown(path), finding, inPath: true })));
  const results: PathFinding[] = [];
  const redacted: string[] = [];
  for (const input of inputs) {
    results.push(...pathFindings(input.path));
    const findings = scan(input.text, options);
    for (const finding of findings) results.push({ path: shown(input.path), finding });
    if (values.redact) {
      const text = findings.length > 0 ? redact(input.text, options) : input.text;
      redacted.push(inputs.length > 1 ? `==> ${escapeControls(shown(input.path))} <==\n${text}` : text);
    }
  }
  for (const skipped of notScanned) results.push(...pathFindings(skipped.path));

  if (values.redact) io.stdout(redacted.join(inputs.length > 1 ? "\n" : ""));
  else if (format === "text") io.stdout(results.map(textLine).join(""));
  else if (format === "json") io.stdout(JSON.stringify(results.map(jsonRow), null, 2) + "\n");
  else io.stdout(JSON.stringify(toSarif(results, [...RULES, ...customRules], cwd), null, 2) + "\n");

  for (const m of [...notScanned, ...errors]) io.stderr(`teammem-scan: ${escapeControls(shown(m.path))}: ${m.reason}\n`);
  if (errors.length > 0) return 2;
  if (results.length > 0) return 1;
  return notScanned.length > 0 ? EXIT_NOT_SCANNED : 0;
}

/** The stderr line naming the config file used, where it came from, and what it changes. */
function configNotice(path: string, from: string, allowed: number, rules: number): string {
  const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? "" : "s"}`;
  return `using config ${path} (${from}): ${plural(allowed, "allowlisted fingerprint")} (never reported), ${plural(rules, "custom rule")} added`;
}

/** One line of text output: `path:line:column ruleId label`, or `path: path holds ruleId label` for a finding in the path. */
function textLine({ path: raw, finding: f, inPath }: PathFinding): string {
  // Control characters in a name (newline, ESC) are escaped as the client prints paths; JSON and SARIF escape them already.
  const path = escapeControls(raw);
  const encoded = f.encoding ? ` (${f.encoding}-encoded)` : "";
  return inPath ? `${path}: path holds ${f.ruleId} ${f.label}${encoded}\n` : `${path}:${f.line}:${f.column} ${f.ruleId} ${f.label}${encoded}\n`;
}

/**
 * One row of `--format json`: the finding without offsets, with its (redacted) path; a finding in
 * the path itself has `"in": "path"` and its columns count in the path as given.
 */
function jsonRow({ path, finding: f, inPath }: PathFinding): object {
  return {
    path,
    ...(inPath && { in: "path" }),
    ruleId: f.ruleId,
    label: f.label,
    line: f.line,
    column: f.column,
    endLine: f.endLine,
    endColumn: f.endColumn,
    fingerprint: f.fingerprint,
    preview: f.preview,
    ...(f.encoding !== undefined && { encoding: f.encoding }),
  };
}
