/**
 * `teammem check` (and the warnings of `status`): memory-aware checks of the team scope, so team
 * memory works for the agents that read it. Warnings only; they never block a sync (`check --strict`
 * turns them into a failing exit code for CI).
 *
 * - the index `team/MEMORY.md`: over 200 lines or 25,000 bytes, links to files that do not exist or
 *   lie outside `team/` (index-checks.ts); topic files (`*.md`) it does not mention; none at all in
 *   Claude Code's format while topic files exist;
 * - frontmatter of topic files: well-formed wherever present; `name`, `description`, `type` in
 *   Claude Code's format (frontmatter.ts);
 * - relative dates ("yesterday", "last Thursday", "next sprint") in any team file, by line (relative-dates.ts).
 *
 * Only team files are read: the private scope stays unread, as everywhere in the client.
 */
import { displayPath } from "../state/layout.js";
import { checkFrontmatter } from "./frontmatter.js";
import { checkIndex, INDEX_PATH, linkTarget } from "./index-checks.js";
import { readMarkdown } from "./markdown.js";
import { findRelativeDates } from "./relative-dates.js";

export type CheckRule =
  | "index-too-long"
  | "index-too-large"
  | "index-missing"
  | "index-broken-link"
  | "index-link-outside"
  | "topic-not-indexed"
  | "frontmatter-missing"
  | "frontmatter-malformed"
  | "frontmatter-name"
  | "frontmatter-description"
  | "frontmatter-type"
  | "relative-date";

export interface MemoryWarning {
  /** Shown path (`team/...`, credentials redacted). */
  readonly path: string;
  /** 1-based line, or null for the file as a whole. */
  readonly line: number | null;
  readonly rule: CheckRule;
  readonly message: string;
}

/** Whose conventions apply: Claude Code's memory format requires frontmatter fields and an index. */
export type MemoryFormat = "claude-code" | "plain";

const isMarkdown = (path: string) => /\.md$/i.test(path);

/**
 * Checks the team files `files` (entry path → content).
 * @returns warnings ordered by path, then line.
 */
export function checkTeamMemory(files: ReadonlyMap<string, string>, format: MemoryFormat): MemoryWarning[] {
  const warnings: MemoryWarning[] = [];
  const warn = (entryPath: string, line: number | null, rule: CheckRule, message: string) =>
    warnings.push({ path: displayPath(entryPath), line, rule, message });
  const parsed = new Map([...files].filter(([p]) => isMarkdown(p)).map(([p, text]) => [p, readMarkdown(text)] as const));

  const index = files.get(INDEX_PATH);
  const topics = [...files.keys()].filter((p) => isMarkdown(p) && p !== INDEX_PATH);
  if (index === undefined) {
    if (format === "claude-code" && topics.length > 0)
      warn(INDEX_PATH, null, "index-missing", `no index: Claude Code opens team topic files through team/${INDEX_PATH}, which does not exist`);
  } else {
    const links = parsed.get(INDEX_PATH)!.links;
    const exists = (p: string) => p === "" || files.has(p) || [...files.keys()].some((f) => f.startsWith(`${p}/`));
    for (const problem of checkIndex(index, links, exists)) warn(INDEX_PATH, problem.line, problem.rule, problem.message);
    const mentioned = new Set(links.map((l) => linkTarget(l.url)).filter((t): t is string => typeof t === "string"));
    for (const topic of topics) {
      if (!mentioned.has(topic))
        warn(topic, null, "topic-not-indexed", `not mentioned in team/${INDEX_PATH}: agents never open it; add a line linking to it`);
    }
  }
  for (const topic of topics) {
    for (const p of checkFrontmatter(files.get(topic)!, format === "claude-code")) warn(topic, p.line, p.rule, p.message);
  }
  for (const [path, text] of files) {
    const codeLines = parsed.get(path)?.codeLines ?? new Set<number>();
    for (const d of findRelativeDates(text, codeLines))
      warn(path, d.line, "relative-date", `relative date "${d.phrase}": a teammate reads this on another day; write the date (e.g. 2026-03-10)`);
  }
  return warnings.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : (a.line ?? 0) - (b.line ?? 0)));
}

/** One line per warning: `team/MEMORY.md:201: the index has ... [index-too-long]`. */
export function formatWarning(w: MemoryWarning): string {
  return `${w.path}${w.line === null ? "" : `:${w.line}`}: ${w.message} [${w.rule}]`;
}
