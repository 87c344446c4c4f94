/**
 * Which memory folder a command works on: `--dir`, or the folder the agent of `--agent` uses for
 * the repository of `--repo` (default: the current folder), or the current folder.
 */
import { realpath } from "node:fs/promises";
import { resolve } from "node:path";
import { UsageError } from "../errors.js";
import { claudeMemoryDir, codexMemoryDir, parseAgent, type AgentKind } from "./agent-folders.js";
import { readRepo, type RepoInfo } from "./git-repo.js";

type Env = Readonly<Record<string, string | undefined>>;

export interface FolderOptions {
  readonly dir?: string | undefined;
  readonly agent?: string | undefined;
  readonly repo?: string | undefined;
}

export interface LocatedFolder {
  /** The memory folder (absolute). */
  readonly root: string;
  readonly agent: AgentKind;
  /** The repository read for `--agent claude-code` or `--repo`; undefined when none was involved. */
  readonly repo?: RepoInfo;
  /** The folder Claude Code keys its memory by (the canonical root), for `claude-code`. */
  readonly projectRoot?: string;
  /** How the folder was chosen, one line for the user (e.g. "Claude Code's project key for /src/web"). */
  readonly how: string;
}

/**
 * Finds the memory folder for `options` (`cwd` is the default of `--dir` and `--repo`).
 * @throws UsageError for `--dir` with `--agent claude-code|codex` (two answers to one question),
 *   `--repo` with neither `--agent` nor an init (`allowRepoAlone`), an unknown agent, or a `--repo`
 *   that cannot be read.
 */
export async function locateFolder(options: FolderOptions, env: Env, cwd: string, allowRepoAlone = false): Promise<LocatedFolder> {
  if (options.dir !== undefined && options.dir.trim() === "") throw new UsageError("--dir must not be empty");
  if (options.repo !== undefined && options.repo.trim() === "") throw new UsageError("--repo must not be empty");
  const agent = options.agent === undefined ? "folder" : parseAgent(options.agent);
  if (agent !== "folder" && options.dir !== undefined)
    throw new UsageError(`--dir and --agent ${agent} both name the memory folder; give one of them (--agent folder --dir D for any folder)`);
  if (agent === "folder" && options.repo !== undefined && !allowRepoAlone)
    throw new UsageError("--repo finds an agent's memory folder: add --agent claude-code (or give the folder with --dir)");
  const repoPath = resolve(cwd, options.repo ?? ".");
  if (agent === "claude-code") {
    const repo = await readRepo(repoPath).catch(async (err: unknown) => {
      if (!(err instanceof UsageError) || options.repo !== undefined) throw err;
      return undefined; // the current folder is no repository: Claude Code keys it by the folder itself
    });
    const projectRoot = repo?.mainRoot ?? (await realpath(repoPath));
    const found = await claudeMemoryDir(env, projectRoot);
    return { root: found.dir, agent, ...(repo ? { repo } : {}), projectRoot, how: found.source };
  }
  const repo = options.repo !== undefined ? await readRepo(repoPath) : undefined;
  if (agent === "codex") return { root: codexMemoryDir(env), agent, ...(repo ? { repo } : {}), how: "Codex's memories folder" };
  return { root: resolve(cwd, options.dir ?? "."), agent, ...(repo ? { repo } : {}), how: options.dir !== undefined ? "--dir" : "the current folder" };
}
