/**
 * Scanner configuration file (JSON, e.g. `.teammem-scan.json`), validated with zod:
 *
 * ```json
 * { "allowFingerprints": ["<32 hex>", ...],
 *   "customRules": [{ "id": "acme-api-key", "label": "ACME API key", "prefixes": ["acme_"],
 *                     "pattern": "acme_[A-Za-z0-9]{32}", "flags": "i" }] }
 * ```
 * Both fields are optional; unknown fields are refused. A custom rule needs a kebab-case `id` that
 * is neither a catalog rule's nor another custom rule's, at least one literal prefix, every prefix
 * at least 3 characters, a `pattern` that compiles and passes {@link checkPatternSafety} without
 * problems or warnings, and `flags` among `i`, `m`, `s`, `u`. With `i` the prefixes are found in
 * any case: each stands for its case variants (`acme_` … `ACME_`, see case-variants.ts), at most
 * {@link MAX_CASE_VARIANTS} for a rule's prefixes together. Errors name the bad field
 * (e.g. `customRules[0].prefixes[1]: ...`) and never quote file contents beyond the field path.
 * Every error carries a stable {@link ConfigErrorCode}.
 */
import { z } from "zod";
import type { Rule } from "./rule.js";
import { checkPatternSafety } from "./engine/safety.js";
import { caseVariantCount, caseVariants, MAX_CASE_VARIANTS } from "./case-variants.js";
import { RULES } from "./rules/index.js";
import { NOT_REGULAR, readSmallFile } from "./small-file.js";

/** A config file is read up to this size; a larger one is refused (`config_too_large`). */
export const MAX_CONFIG_FILE_BYTES = 1024 * 1024;

/** Stable codes of {@link ConfigError}; a code never changes meaning, messages may be reworded. */
export type ConfigErrorCode =
  /** No file at the path. */
  | "config_missing"
  /** The path is a folder, a FIFO, socket or device (not a regular file), or a part of it is a file. */
  | "config_not_a_file"
  /** The file cannot be read (EACCES, ...). */
  | "config_unreadable"
  /** Larger than {@link MAX_CONFIG_FILE_BYTES}. */
  | "config_too_large"
  /** Not a valid config: binary, not UTF-8, not JSON, or a field is wrong (each named). */
  | "config_invalid";

/** A config that cannot be used: `code` is stable; the message names the file and, for a bad field, each field. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
  constructor(
    message: string,
    readonly code: ConfigErrorCode = "config_invalid",
  ) {
    super(message);
  }
}

const customRuleSchema = z
  .strictObject({
    id: z.string().regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, "must be kebab-case (a-z, 0-9, single dashes)"),
    label: z.string().min(1, "must not be empty").max(200),
    prefixes: z.array(z.string().min(3, "a custom rule prefix needs at least 3 characters")).min(1, "needs at least one literal prefix"),
    pattern: z.string().min(1).max(4096),
    flags: z
      .string()
      .regex(/^[imsu]*$/, "only the flags i, m, s, u are allowed")
      .optional(),
  })
  .superRefine((rule, ctx) => {
    let re: RegExp;
    try {
      re = new RegExp(rule.pattern, (rule.flags ?? "") + "y");
    } catch (e) {
      ctx.addIssue({ code: "custom", path: ["pattern"], message: `does not compile: ${(e as Error).message}` });
      return;
    }
    const safety = checkPatternSafety(re);
    for (const p of [...safety.problems, ...safety.warnings]) ctx.addIssue({ code: "custom", path: ["pattern"], message: `unsafe (${p.kind}): ${p.message}` });
    const flags = rule.flags ?? "";
    const variants = rule.prefixes.reduce((n, p) => n + caseVariantCount(p, flags), 0);
    if (variants > MAX_CASE_VARIANTS) {
      ctx.addIssue({
        code: "custom",
        path: ["prefixes"],
        message:
          `with flag i the prefixes are found in any case and stand for ${variants} case variants, more than ${MAX_CASE_VARIANTS}: ` +
          "give shorter prefixes (the pattern still checks the rest of the token), or drop the flag i and list the cases that occur",
      });
    }
  });

const configSchema = z.strictObject({
  allowFingerprints: z.array(z.string().regex(/^[0-9a-fA-F]{8,64}$/, "must be a hex fingerprint as printed by the scanner")).default([]),
  customRules: z.array(customRuleSchema).default([]),
});

export interface ScanConfig {
  readonly allowFingerprints: readonly string[];
  readonly customRules: readonly Rule[];
}

function formatPath(path: readonly PropertyKey[]): string {
  let s = "";
  for (const p of path) s += typeof p === "number" ? `[${p}]` : s ? `.${String(p)}` : String(p);
  return s || "(root)";
}

let catalogById: Map<string, Rule> | undefined;
const catalogIds = (): Map<string, Rule> => (catalogById ??= new Map(RULES.map((r) => [r.id, r])));

/**
 * Validates a parsed config object and turns custom rules into {@link Rule}s.
 * Throws ConfigError listing every problem as `<field path>: <message>`, one per line.
 */
export function parseConfig(data: unknown, source = "config"): ScanConfig {
  const parsed = configSchema.safeParse(data);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${formatPath(i.path)}: ${i.message}`);
    throw new ConfigError(`${source}: invalid scanner config (config_invalid)\n  ${lines.join("\n  ")}`);
  }
  // A finding names its rule by id (text, JSON, SARIF's rule table): two rules with one id would
  // report different formats under one name.
  const idProblems: string[] = [];
  const seen = new Map<string, number>();
  for (const [k, r] of parsed.data.customRules.entries()) {
    const catalog = catalogIds().get(r.id);
    const earlier = seen.get(r.id);
    if (catalog !== undefined) idProblems.push(`customRules[${k}].id: ${r.id} is the id of the catalog rule "${catalog.label}": give the custom rule an id of its own`);
    else if (earlier !== undefined) idProblems.push(`customRules[${k}].id: ${r.id} is also the id of customRules[${earlier}]: give each custom rule an id of its own`);
    else seen.set(r.id, k);
  }
  if (idProblems.length > 0) throw new ConfigError(`${source}: invalid scanner config (config_invalid)\n  ${idProblems.join("\n  ")}`);
  return {
    allowFingerprints: parsed.data.allowFingerprints.map((f) => f.toLowerCase()),
    customRules: parsed.data.customRules.map(
      (r): Rule => ({
        id: r.id,
        label: r.label,
        // The engine compares prefixes exactly: with `i`, every case variant is a prefix (bounded above).
        prefixes: [...new Set(r.prefixes.flatMap((p) => caseVariants(p, r.flags ?? "", Infinity)!))],
        pattern: new RegExp(r.pattern, (r.flags ?? "") + "y"),
        examples: () => ({ positive: [], negative: [] }),
      }),
    ),
  };
}

/** The {@link ConfigError} for an I/O error `e` on config file `path`. */
function configIoError(path: string, e: unknown): ConfigError {
  const code = (e as NodeJS.ErrnoException).code ?? "error";
  if (code === "ENOENT") return new ConfigError(`${path}: cannot read config: no such file (config_missing)`, "config_missing");
  if (code === "EISDIR" || code === "ENOTDIR") {
    const what = code === "EISDIR" ? "a folder, not a config file" : "a part of the path is a file, not a folder";
    return new ConfigError(`${path}: cannot read config: ${what} (config_not_a_file)`, "config_not_a_file");
  }
  if (code === NOT_REGULAR || code === "ENXIO") {
    const kind = (e as { kind?: string }).kind ?? "a socket";
    return new ConfigError(`${path}: cannot read config: ${kind}, not a regular file (config_not_a_file)`, "config_not_a_file");
  }
  return new ConfigError(`${path}: cannot read config (${code}) (config_unreadable)`, "config_unreadable");
}

/**
 * Reads and validates the JSON config file at `path` (UTF-8, at most {@link MAX_CONFIG_FILE_BYTES}).
 * @throws ConfigError naming `path`, with its code: `config_missing`, `config_not_a_file`,
 *   `config_unreadable`, `config_too_large`, or `config_invalid` (binary, not UTF-8, not JSON, or
 *   invalid: see {@link parseConfig}).
 */
export function loadConfig(path: string): ScanConfig {
  let bytes;
  try {
    bytes = readSmallFile(path, MAX_CONFIG_FILE_BYTES);
  } catch (e) {
    throw configIoError(path, e);
  }
  if (bytes === "too-large") throw new ConfigError(`${path}: larger than ${MAX_CONFIG_FILE_BYTES} bytes, not a scanner config (config_too_large)`, "config_too_large");
  let raw: string;
  try {
    raw = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new ConfigError(`${path}: binary, not a scanner config: not UTF-8 text (config_invalid)`);
  }
  if (raw.includes("\0")) throw new ConfigError(`${path}: binary, not a scanner config: a NUL byte (config_invalid)`);
  if (raw.trim() === "") throw new ConfigError(`${path}: empty, not a scanner config (a JSON object, {} at least) (config_invalid)`);
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch {
    throw new ConfigError(`${path}: not valid JSON (config_invalid)`);
  }
  return parseConfig(data, path);
}
