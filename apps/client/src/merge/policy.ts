/**
 * Which merge policy applies to a team file (see `mergeText` in the protocol): `union` keeps
 * concurrent insertions at one point both, `conflict` makes them a conflict. Rules come from the
 * `merge` list of `.teammem/config.json`, checked in order before the built-in default
 * ({@link DEFAULT_MERGE_RULES}); the first whose pattern matches wins; no match → `conflict`.
 *
 * Patterns are globs as in `.gitattributes`: a pattern without `/` matches the file name at any
 * depth (`*.md`, `MEMORY.md`), one with `/` matches the path below `team/` (`docs/**`,
 * `decisions/*.json`); `*` stays within a folder, `**` crosses folders; case is ignored.
 */
import picomatch from "picomatch";
import { z } from "zod";
import { MERGE_POLICIES, type MergePolicy } from "@teammem/protocol";

export const MergeRule = z.strictObject({
  /** Glob of entry paths (relative to team/), see the module comment. */
  pattern: z.string().min(1).max(1024),
  policy: z.enum(MERGE_POLICIES),
});
export type MergeRule = z.infer<typeof MergeRule>;

/**
 * Memory files are Markdown lists of notes that teammates append to, so every `*.md` (the index
 * files MEMORY.md, CLAUDE.md, AGENTS.md and the topic files) unites concurrent insertions; other
 * files (JSON, YAML...) where two insertions may break the syntax conflict.
 */
export const DEFAULT_MERGE_RULES: readonly MergeRule[] = [{ pattern: "*.md", policy: "union" }];

/** The policy for files with no matching rule. */
const FALLBACK_POLICY: MergePolicy = "conflict";

/** A matcher of `rules` (then the defaults): entry path → policy. */
export function mergePolicies(rules: readonly MergeRule[] = []): (entryPath: string) => MergePolicy {
  const compiled = [...rules, ...DEFAULT_MERGE_RULES].map((rule) => ({
    test: picomatch(rule.pattern, { basename: !rule.pattern.includes("/"), dot: true, nocase: true }),
    policy: rule.policy,
  }));
  return (entryPath) => compiled.find((c) => c.test(entryPath))?.policy ?? FALLBACK_POLICY;
}
