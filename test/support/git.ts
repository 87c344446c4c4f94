/** Real git repositories for tests: `git init`, remotes, a first commit, linked worktrees. */
import { execFile } from "node:child_process";
import { mkdir, realpath } from "node:fs/promises";
import { promisify } from "node:util";

const exec = promisify(execFile);

/** Runs git in `cwd` with a fixed identity and no user or system config. */
export async function git(cwd: string, ...args: string[]): Promise<string> {
  const env = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1", GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@example.com", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@example.com" };
  return (await exec("git", ["-C", cwd, ...args], { env })).stdout;
}

/**
 * A new repository at `dir` (created) with one empty commit and the given remotes.
 * @returns the repository's root as git prints it (symlinks resolved).
 */
export async function makeRepo(dir: string, remotes: Record<string, string> = {}): Promise<string> {
  await mkdir(dir, { recursive: true });
  await git(dir, "init", "-q", "-b", "main");
  await git(dir, "commit", "-q", "--allow-empty", "-m", "first");
  for (const [name, url] of Object.entries(remotes)) await git(dir, "remote", "add", name, url);
  return realpath(dir);
}

/** A linked worktree of `repo` at `dir` on a new branch. */
export async function addWorktree(repo: string, dir: string, branch: string): Promise<string> {
  await git(repo, "worktree", "add", "-q", "-b", branch, dir);
  return realpath(dir);
}
