/**
 * What teammem needs to know about the git repository an agent works in: its main worktree's root
 * (the key of the agent's memory folder, shared by every worktree of the repository) and its
 * remotes (the default namespace). Asks the `git` command, never parses `.git/` by hand.
 */
import { execFile } from "node:child_process";
import { dirname, resolve } from "node:path";
import { promisify } from "node:util";
import { UsageError } from "../errors.js";

const exec = promisify(execFile);

/** Longest any git call may take, in ms (a hung credential helper or network mount must not hang the CLI). */
const GIT_TIMEOUT_MS = 10_000;

export interface GitRemote {
  readonly name: string;
  readonly url: string;
}

export interface RepoInfo {
  /** Root of the worktree `--repo` named (absolute, as git prints it: symlinks resolved). */
  readonly worktreeRoot: string;
  /**
   * Root of the repository's main worktree: the folder holding the common `.git` folder. Equal to
   * `worktreeRoot` except in a linked worktree (`git worktree add`), whose main root it names.
   */
  readonly mainRoot: string;
  /** Remotes in `git remote` order. */
  readonly remotes: readonly GitRemote[];
}

async function git(cwd: string, args: string[]): Promise<string> {
  const { stdout } = await exec("git", ["-C", cwd, ...args], {
    timeout: GIT_TIMEOUT_MS,
    maxBuffer: 1024 * 1024,
    // No prompt, no pager, no system or global config surprises in what we parse.
    env: { ...process.env, GIT_TERMINAL_PROMPT: "0", GIT_PAGER: "cat", LC_ALL: "C" },
  });
  return stdout;
}

/**
 * Reads the repository containing `path`.
 * @throws UsageError when `path` is not inside a git working tree, or git is not installed.
 */
export async function readRepo(path: string): Promise<RepoInfo> {
  const abs = resolve(path);
  let lines: string[];
  try {
    lines = (await git(abs, ["rev-parse", "--path-format=absolute", "--show-toplevel", "--git-dir", "--git-common-dir"])).split("\n");
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: string };
    if (e.code === "ENOENT" && !e.stderr) throw new UsageError("--repo needs the git command, which was not found on PATH");
    const reason = (e.stderr ?? e.message).trim().split("\n")[0] ?? "";
    throw new UsageError(`--repo ${abs} is not inside a git working tree (${reason})`);
  }
  const [worktreeRoot, gitDir, commonDir] = lines;
  if (!worktreeRoot || !gitDir || !commonDir) throw new UsageError(`--repo ${abs} is not inside a git working tree (a bare repository?)`);
  return {
    worktreeRoot,
    // Like Claude Code's findCanonicalGitRoot (src/utils/git.ts): a linked worktree's git folder
    // names a common one (`commondir`), whose parent is the main worktree; otherwise this worktree
    // is the main one (also with a separate git folder, `git init --separate-git-dir`).
    mainRoot: gitDir === commonDir ? worktreeRoot : dirname(commonDir),
    remotes: await readRemotes(worktreeRoot),
  };
}

async function readRemotes(root: string): Promise<GitRemote[]> {
  const names = (await git(root, ["remote"])).split("\n").filter(Boolean);
  const remotes: GitRemote[] = [];
  for (const name of names) {
    const url = (await git(root, ["remote", "get-url", name]).catch(() => "")).trim();
    if (url) remotes.push({ name, url });
  }
  return remotes;
}

/**
 * The remote whose URL names the repository: `preferred` if given, else `origin`, else the only one.
 * @throws UsageError when there is none, `preferred` does not exist, or several exist and none is `origin`.
 */
export function pickRemote(repo: RepoInfo, preferred?: string): GitRemote {
  if (preferred !== undefined) {
    const found = repo.remotes.find((r) => r.name === preferred);
    if (!found) throw new UsageError(`--remote ${preferred}: no such remote in ${repo.worktreeRoot} (it has: ${names(repo)})`);
    return found;
  }
  const origin = repo.remotes.find((r) => r.name === "origin");
  if (origin) return origin;
  if (repo.remotes.length === 1) return repo.remotes[0]!;
  if (repo.remotes.length === 0)
    throw new UsageError(`${repo.worktreeRoot} has no git remote to name the namespace after; pass --namespace (e.g. acme/web)`);
  throw new UsageError(`${repo.worktreeRoot} has several remotes and none is "origin" (${names(repo)}); pass --remote NAME or --namespace`);
}

const names = (repo: RepoInfo) => (repo.remotes.length ? repo.remotes.map((r) => r.name).join(", ") : "none");
