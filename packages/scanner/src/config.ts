/**
 * Scanner configuration file (JSON, e.g. `.teammem-scan.json`), validated with zod:
 *
 * ```json
 * { "allowFingerprints": ["<32 hex>", ...],
 *   "customRules": [{ "id": "acme-api-key", "label": "ACME API key", "prefixes": ["acme_"],
 *                     "pattern": "acme_[A-Za-z0-9]{32}", "flags": "i" }] }
 * ```
 * Both fields are optional; unknown fields are refused. A custom rule needs kebab-case `id`, at least
 * one literal prefix, every prefix at least 3 characters, a `pattern` that compiles and passes
 * {@link checkPatternSafety} without problems or warnings, and `flags` among `i`, `m`, `s`, `u`. Errors name the bad field
 * (e.g. `customRules[0].prefixes[1]: ...`) and never quote file contents beyond the field path.
 */
import { readFileSync } from "node:fs";
import { z } from "zod";
import type { Rule } from "./rule.js";
import { checkPatternSafety } from "./engine/safety.js";

export class ConfigError extends Error {
  override readonly name = "ConfigError";
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

/**
 * Validates a parsed config object and turns custom rules into {@link Rule}s.
 * Throws ConfigError listing every problem as `<field path>: <message>`, one per line.
 */
export function parseConfig(data: unknown, source = "config"): ScanConfig {
  const parsed = configSchema.safeParse(data);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${formatPath(i.path)}: ${i.message}`);
    throw new ConfigError(`${source}: invalid scanner config\n  ${lines.join("\n  ")}`);
  }
  const ids = new Set<string>();
  for (const [k, r] of parsed.data.customRules.entries()) {
    if (ids.has(r.id)) throw new ConfigError(`${source}: invalid scanner config\n  customRules[${k}].id: duplicate id ${r.id}`);
    ids.add(r.id);
  }
  return {
    allowFingerprints: parsed.data.allowFingerprints.map((f) => f.toLowerCase()),
    customRules: parsed.data.customRules.map(
      (r): Rule => ({
        id: r.id,
        label: r.label,
        prefixes: r.prefixes,
        pattern: new RegExp(r.pattern, (r.flags ?? "") + "y"),
        examples: () => ({ positive: [], negative: [] }),
      }),
    ),
  };
}

/**
 * Reads and validates the JSON config file at `path`. Throws ConfigError naming `path` when it
 * cannot be read, is not JSON, or is invalid (see {@link parseConfig}).
 */
export function loadConfig(path: string): ScanConfig {
  let raw: string;
  try {
    raw = readFileSync(path, "utf8");
  } catch (e) {
    throw new ConfigError(`${path}: cannot read config (${(e as NodeJS.ErrnoException).code ?? "error"})`);
  }
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch {
    throw new ConfigError(`${path}: not valid JSON`);
  }
  return parseConfig(data, path);
}
