/**
 * Where coding agents keep their memory, so `--agent claude-code|codex` finds the folder without
 * the user knowing it.
 *
 * Claude Code (auto memory, https://code.claude.com/docs/en/memory, "Storage location"):
 * `<config>/projects/<project key>/memory/`, `<config>` being `$CLAUDE_CONFIG_DIR` or `~/.claude`.
 * The project key is the repository's canonical root (the main worktree's, so every worktree and
 * subfolder of one repository shares the folder; outside git, the project folder) with every
 * character other than `A-Z a-z 0-9` replaced by `-`; a key longer than 200 characters is cut to 200
 * and followed by `-` and a hash of the root (Claude Code's `sanitizePath`, src/utils/path.ts; its
 * `findCanonicalGitRoot`, src/utils/git.ts). The `autoMemoryDirectory` setting (user settings or the
 * project's `.claude/settings.local.json`; never the shared `.claude/settings.json`) moves the folder.
 * Claude Code's own team memory lives in the `team/` subfolder, the same layout as teammem's team scope.
 *
 * Codex (memories, https://developers.openai.com/codex/memories): `$CODEX_HOME/memories` or
 * `~/.codex/memories`, one folder for every repository (a git repository of its own); the team
 * scope is its `team/` subfolder.
 */
import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";
import { UsageError } from "../errors.js";

export const AGENTS = ["claude-code", "codex", "folder"] as const;
export type AgentKind = (typeof AGENTS)[number];

type Env = Readonly<Record<string, string | undefined>>;

/** The user's home folder: `$HOME` (`%USERPROFILE%` on Windows), else the OS's answer. */
export function homeOf(env: Env): string {
  return env["HOME"] || env["USERPROFILE"] || homedir();
}

/** Claude Code's configuration folder: `$CLAUDE_CONFIG_DIR`, else `~/.claude`. */
export function claudeConfigDir(env: Env): string {
  return env["CLAUDE_CONFIG_DIR"] || join(homeOf(env), ".claude");
}

/** Longest project key before Claude Code shortens it with a hash (its MAX_SANITIZED_LENGTH). */
const MAX_KEY_LENGTH = 200;

/** The 32-bit string hash Claude Code uses under Node (`djb2Hash` in src/utils/hash.ts), base 36. */
function keyHash(text: string): string {
  let hash = 0;
  for (let i = 0; i < text.length; i++) hash = ((hash << 5) - hash + text.charCodeAt(i)) | 0;
  return Math.abs(hash).toString(36);
}

/**
 * Claude Code's project key for the canonical root `root` (an absolute path):
 * `/home/ann/src/web` → `-home-ann-src-web`. Keys over 200 characters end in `-<hash>`; the hash is
 * the Node build's (the Bun-built native binary hashes differently, so {@link claudeMemoryDir}
 * prefers a folder already on disk that shares the first 200 characters).
 */
export function claudeProjectKey(root: string): string {
  const key = root.replace(/[^a-zA-Z0-9]/g, "-");
  return key.length <= MAX_KEY_LENGTH ? key : `${key.slice(0, MAX_KEY_LENGTH)}-${keyHash(root)}`;
}

export interface ClaudeMemoryFolder {
  /** The memory folder (`.../memory`). */
  readonly dir: string;
  /** The project key (the folder's parent's name), or null when `autoMemoryDirectory` placed it. */
  readonly projectKey: string | null;
  /** Where the location came from, for the user. */
  readonly source: string;
}

/** `autoMemoryDirectory` from one settings file, `~/` expanded; undefined when unset or unusable. */
async function autoMemoryDirectory(file: string, env: Env): Promise<string | undefined> {
  let settings: unknown;
  try {
    settings = JSON.parse(await readFile(file, "utf8"));
  } catch {
    return undefined;
  }
  const value = (settings as { autoMemoryDirectory?: unknown } | null)?.autoMemoryDirectory;
  if (typeof value !== "string" || value.trim() === "") return undefined;
  const expanded = value.startsWith("~/") ? join(homeOf(env), value.slice(2)) : value;
  return isAbsolute(expanded) ? expanded : undefined;
}

/**
 * The auto-memory folder Claude Code uses for the repository whose canonical root is `root`
 * (see the module comment). The folder may not exist yet (Claude Code creates it on first write).
 */
export async function claudeMemoryDir(env: Env, root: string): Promise<ClaudeMemoryFolder> {
  const config = claudeConfigDir(env);
  for (const file of [join(root, ".claude", "settings.local.json"), join(config, "settings.json")]) {
    const moved = await autoMemoryDirectory(file, env);
    if (moved) return { dir: moved, projectKey: null, source: `autoMemoryDirectory in ${file}` };
  }
  const projects = join(config, "projects");
  let key = claudeProjectKey(root);
  if (key.length > MAX_KEY_LENGTH && !existsSync(join(projects, key))) {
    const prefix = key.slice(0, MAX_KEY_LENGTH + 1);
    const existing = (await readdir(projects).catch(() => [] as string[])).filter((name) => name.startsWith(prefix));
    if (existing.length === 1) key = existing[0]!;
  }
  return { dir: join(projects, key, "memory"), projectKey: key, source: `Claude Code's project key for ${root}` };
}

/** Codex's memories folder: `$CODEX_HOME/memories`, else `~/.codex/memories`. */
export function codexMemoryDir(env: Env): string {
  return join(env["CODEX_HOME"] || join(homeOf(env), ".codex"), "memories");
}

/** @throws UsageError unless `raw` names a known agent. */
export function parseAgent(raw: string): AgentKind {
  if ((AGENTS as readonly string[]).includes(raw)) return raw as AgentKind;
  throw new UsageError(`--agent must be one of ${AGENTS.join(", ")} (got "${raw}")`);
}
