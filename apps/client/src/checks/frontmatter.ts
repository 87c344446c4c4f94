/**
 * Frontmatter of topic files: a YAML mapping between a first line `---` and a closing `---` (or
 * `...`). Claude Code's memory files carry `name`, `description` and `type` there (one of `user`,
 * `feedback`, `project`, `reference`; some versions nest it as `metadata.type`): Claude Code reads
 * them to decide which memory is relevant (its memory types, src/memdir/memoryTypes.ts). Parsed
 * with `yaml`.
 */
import { isMap, parseDocument } from "yaml";

/** Claude Code's memory types. */
export const MEMORY_TYPES = ["user", "feedback", "project", "reference"] as const;

export interface FrontmatterProblem {
  readonly rule: "frontmatter-missing" | "frontmatter-malformed" | "frontmatter-name" | "frontmatter-description" | "frontmatter-type";
  /** 1-based line in the file. */
  readonly line: number;
  readonly message: string;
}

type Frontmatter =
  | { kind: "none" }
  | { kind: "unclosed" }
  | { kind: "block"; yaml: string; firstLine: number; closeLine: number };

function splitFrontmatter(text: string): Frontmatter {
  const lines = text.replace(/^\uFEFF/, "").split(/\r\n|\n|\r/);
  if (lines[0]?.trimEnd() !== "---") return { kind: "none" };
  for (let i = 1; i < lines.length; i++) {
    const l = lines[i]!.trimEnd();
    if (l === "---" || l === "...") return { kind: "block", yaml: lines.slice(1, i).join("\n"), firstLine: 2, closeLine: i + 1 };
  }
  return { kind: "unclosed" };
}

/**
 * Checks the frontmatter of one topic file. With `requireFields` (Claude Code's format) a file
 * without frontmatter, or with `name`, `description` or `type` missing or ill-formed, is reported;
 * otherwise only a frontmatter that is present and broken (unclosed, not YAML, not a mapping).
 */
export function checkFrontmatter(text: string, requireFields: boolean): FrontmatterProblem[] {
  const fm = splitFrontmatter(text);
  if (fm.kind === "none")
    return requireFields
      ? [{ rule: "frontmatter-missing", line: 1, message: "no frontmatter: Claude Code decides a memory's relevance from its name, description and type" }]
      : [];
  if (fm.kind === "unclosed") return [{ rule: "frontmatter-malformed", line: 1, message: "frontmatter opened with --- is never closed" }];
  const doc = parseDocument(fm.yaml, { prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    const err = doc.errors[0]!;
    const line = fm.firstLine + (err.linePos?.[0]?.line ?? 1) - 1;
    return [{ rule: "frontmatter-malformed", line, message: `frontmatter is not valid YAML (${err.code})` }];
  }
  if (fm.yaml.trim() === "") return requireFields ? [{ rule: "frontmatter-malformed", line: 1, message: "frontmatter is empty" }] : [];
  if (!isMap(doc.contents)) return [{ rule: "frontmatter-malformed", line: fm.firstLine, message: "frontmatter is not a key: value mapping" }];
  if (!requireFields) return [];
  const data = doc.toJS() as Record<string, unknown>;
  const lineOf = (key: string) => {
    const idx = fm.yaml.split("\n").findIndex((l) => l.startsWith(`${key}:`));
    return idx < 0 ? 1 : fm.firstLine + idx;
  };
  const problems: FrontmatterProblem[] = [];
  const oneLine = (key: "name" | "description") => {
    const value = data[key];
    const rule = key === "name" ? "frontmatter-name" : "frontmatter-description";
    if (value === undefined || value === null) problems.push({ rule, line: 1, message: `frontmatter has no ${key}` });
    else if (typeof value !== "string" || value.trim() === "") problems.push({ rule, line: lineOf(key), message: `frontmatter ${key} must be non-empty text` });
    else if (/[\r\n]/.test(value.trim())) problems.push({ rule, line: lineOf(key), message: `frontmatter ${key} must be one line` });
  };
  oneLine("name");
  oneLine("description");
  const metadata = data["metadata"];
  const nested = metadata && typeof metadata === "object" ? (metadata as Record<string, unknown>)["type"] : undefined;
  const type = data["type"] ?? nested;
  if (type === undefined || type === null)
    problems.push({ rule: "frontmatter-type", line: 1, message: `frontmatter has no type (${MEMORY_TYPES.join(", ")})` });
  else if (typeof type !== "string" || !(MEMORY_TYPES as readonly string[]).includes(type))
    problems.push({ rule: "frontmatter-type", line: lineOf(data["type"] !== undefined ? "type" : "metadata"), message: `frontmatter type must be one of ${MEMORY_TYPES.join(", ")}` });
  return problems;
}
