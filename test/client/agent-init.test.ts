/**
 * Issue 13: `teammem init --repo PATH --agent claude-code|codex|folder` with real git repositories
 * and a temporary HOME holding Claude Code's and Codex's folder layouts.
 */
import { existsSync } from "node:fs";
import { mkdir, readFile, realpath, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { fakeGithubPat } from "@teammem/scanner/testing";
import { teammem, tempDir } from "../support/cli.js";
import { addWorktree, git, makeRepo } from "../support/git.js";
import { startTestServer } from "../support/server.js";

/** A port nothing listens on: init sets up offline (--offline), without contacting it. */
const OFFLINE = "http://127.0.0.1:4";

async function sandbox() {
  const root = await tempDir("teammem-agents-");
  onTestFinished(() => root.remove());
  const base = await realpath(root.path);
  const home = join(base, "home");
  await mkdir(home);
  return { base, home, env: { HOME: home } };
}

const claudeKey = (root: string) => root.replace(/[^a-zA-Z0-9]/g, "-");
const configOf = async (dir: string) => JSON.parse(await readFile(join(dir, ".teammem", "config.json"), "utf8"));

describe("teammem init --agent claude-code", () => {
  it("sets up Claude Code's memory folder of the repository, named after its remote, and every worktree shares it", async () => {
    const { base, home, env } = await sandbox();
    const repo = await makeRepo(join(base, "src", "web"), { origin: "git@github.com:Acme/Web.git" });
    const memory = join(home, ".claude", "projects", claudeKey(repo), "memory");
    // Claude Code already wrote private memory here: it stays private and untouched.
    await mkdir(memory, { recursive: true });
    await writeFile(join(memory, "MEMORY.md"), "# private index\n");

    const init = await teammem(["init", "--server", OFFLINE, "--offline", "--agent", "claude-code", "--repo", repo], env);
    expect([init.code, init.stderr]).toEqual([0, ""]);
    expect(init.stdout).toContain(`Claude Code memory folder ${memory} (Claude Code's project key for ${repo}; every worktree of the repository shares it)`);
    expect(init.stdout).toContain(`namespace acme/web from remote origin (git@github.com:Acme/Web.git) of ${repo}`);
    expect(init.stdout).toContain(`initialised ${memory}: namespace acme/web at ${OFFLINE}; team scope ${join(memory, "team")}`);
    expect(await configOf(memory)).toMatchObject({ namespace: "acme/web", agent: "claude-code", projectRoot: repo });
    expect(existsSync(join(memory, "team"))).toBe(true);
    expect(await readFile(join(memory, "MEMORY.md"), "utf8")).toBe("# private index\n");

    // A linked worktree, a subfolder and the current folder all reach the same memory folder.
    const worktree = await addWorktree(repo, join(base, "src", "web-feature"), "feature");
    await mkdir(join(repo, "packages", "ui"), { recursive: true });
    for (const [args, cwd] of [
      [["--repo", worktree], undefined],
      [["--repo", join(repo, "packages", "ui")], undefined],
      [[], worktree],
    ] as const) {
      const again = await teammem(["init", "--server", OFFLINE, "--offline", "--agent", "claude-code", ...args], env, { cwd });
      expect([again.code, again.stderr]).toEqual([0, ""]);
      expect(again.stdout).toContain(`updated ${memory}: namespace acme/web`);
      const status = await teammem(["status", "--agent", "claude-code", "--json", ...args], env, { cwd });
      expect(JSON.parse(status.stdout)).toMatchObject({ namespace: "acme/web" });
    }
  });

  it("says when Claude Code has not written memory for the repository yet, and creates the folder", async () => {
    const { base, home, env } = await sandbox();
    const repo = await makeRepo(join(base, "fresh"), { origin: "https://gitlab.example.com/group/subgroup/fresh.git" });
    const init = await teammem(["init", "--server", OFFLINE, "--offline", "--agent", "claude-code", "--repo", repo], env);
    expect(init.code).toBe(0);
    expect(init.stdout).toContain("Claude Code has not written memory here yet, created");
    expect(init.stdout).toContain("namespace group/subgroup/fresh from remote origin");
    expect(existsSync(join(home, ".claude", "projects", claudeKey(repo), "memory", "team"))).toBe(true);
  });

  it("keys a folder that is no git repository by the folder itself, with --namespace", async () => {
    const { base, home, env } = await sandbox();
    const plain = join(base, "plain");
    await mkdir(plain);
    const noNs = await teammem(["init", "--server", OFFLINE, "--offline", "--agent", "claude-code"], env, { cwd: plain });
    expect(noNs.code).toBe(2);
    expect(noNs.stderr).toContain("--namespace is required");
    const init = await teammem(["init", "--server", OFFLINE, "--offline", "--agent", "claude-code", "--namespace", "acme/plain"], env, { cwd: plain });
    expect([init.code, init.stderr]).toEqual([0, ""]);
    expect(init.stdout).toContain("not a git repository: keyed by the folder itself");
    expect(existsSync(join(home, ".claude", "projects", claudeKey(plain), "memory", ".teammem", "config.json"))).toBe(true);
  });

  it("refuses --dir together with --agent claude-code, and --repo naming no repository, creating nothing", async () => {
    const { base, home, env } = await sandbox();
    const repo = await makeRepo(join(base, "r"), { origin: "git@github.com:acme/r.git" });
    const both = await teammem(["init", "--server", OFFLINE, "--offline", "--agent", "claude-code", "--repo", repo, "--dir", join(base, "x")], env);
    expect([both.code, both.stderr]).toEqual([2, expect.stringContaining("--dir and --agent claude-code both name the memory folder")]);
    const notRepo = await teammem(["init", "--server", OFFLINE, "--offline", "--agent", "claude-code", "--repo", home], env);
    expect([notRepo.code, notRepo.stderr]).toEqual([2, expect.stringContaining("is not inside a git working tree")]);
    const badAgent = await teammem(["init", "--server", OFFLINE, "--offline", "--agent", "cursor", "--repo", repo], env);
    expect([badAgent.code, badAgent.stderr]).toEqual([2, expect.stringContaining("--agent must be one of claude-code, codex, folder")]);
    expect(existsSync(join(home, ".claude"))).toBe(false);
    expect(existsSync(join(base, "x"))).toBe(false);
  });

  it("checks the token with the server and creates the owner/repo namespace there", async () => {
    const server = await startTestServer("pglite");
    onTestFinished(() => server.dispose());
    const { base, home, env } = await sandbox();
    const repo = await makeRepo(join(base, "web"), { origin: "https://github.com/acme/web" });
    const token = await server.token("ann");
    const init = await teammem(["init", "--server", server.url, "--agent", "claude-code", "--repo", repo, "--token", token], env);
    expect([init.code, init.stderr]).toEqual([0, ""]);
    expect(init.stdout).toContain("namespace acme/web created on the server (new, no entries yet)");
    const memory = join(home, ".claude", "projects", claudeKey(repo), "memory");
    await writeFile(join(memory, "team", "build.md"), "make check\n");
    const sync = await teammem(["sync", "--agent", "claude-code", "--repo", repo], env);
    expect([sync.code, sync.stderr]).toEqual([0, ""]);
    expect(sync.stdout).toContain("pushed: 1 applied");
  });
});

describe("teammem init --agent codex", () => {
  it("sets up the team/ subfolder of ~/.codex/memories (a git repository) and keeps .teammem out of its git", async () => {
    const { base, home, env } = await sandbox();
    const memories = join(home, ".codex", "memories");
    await makeRepo(memories);
    await writeFile(join(memories, "MEMORY.md"), "# codex\n");
    await git(memories, "add", "MEMORY.md");
    await git(memories, "commit", "-q", "-m", "baseline");
    const repo = await makeRepo(join(base, "api"), { upstream: "ssh://git@git.example.com:2222/acme/api.git" });

    const init = await teammem(["init", "--server", OFFLINE, "--offline", "--agent", "codex", "--repo", repo, "--token", "tok-abc"], env);
    expect([init.code, init.stderr]).toEqual([0, ""]);
    expect(init.stdout).toContain("set up offline (server not contacted); the token was stored without being checked");
    expect(init.stdout).toContain(`Codex memories folder ${memories} (one for every repository; its team/ subfolder syncs with this namespace)`);
    expect(init.stdout).toContain("namespace acme/api from remote upstream (ssh://git.example.com:2222/acme/api.git)");
    expect(existsSync(join(memories, "team"))).toBe(true);
    // git sees no state folder (it holds the token): only the new team/ folder would show, once it has files
    expect(await git(memories, "status", "--porcelain", "--untracked-files=all")).toBe("");
    await writeFile(join(memories, "team", "a.md"), "a\n");
    expect(await git(memories, "status", "--porcelain", "--untracked-files=all")).toBe("?? team/a.md\n");

    const codexHome = join(base, "codex-home");
    const moved = await teammem(["init", "--server", OFFLINE, "--offline", "--agent", "codex", "--namespace", "acme/api"], { ...env, CODEX_HOME: codexHome });
    expect(moved.code).toBe(0);
    expect(existsSync(join(codexHome, "memories", ".teammem", "config.json"))).toBe(true);
  });

  it("refuses to point the one Codex folder at a second repository's namespace", async () => {
    const { base, env } = await sandbox();
    const a = await makeRepo(join(base, "a"), { origin: "git@github.com:acme/a.git" });
    const b = await makeRepo(join(base, "b"), { origin: "git@github.com:acme/b.git" });
    expect((await teammem(["init", "--server", OFFLINE, "--offline", "--agent", "codex", "--repo", a], env)).code).toBe(0);
    const second = await teammem(["init", "--server", OFFLINE, "--offline", "--agent", "codex", "--repo", b], env);
    expect([second.code, second.stderr]).toEqual([2, expect.stringContaining("is already set up for namespace acme/a")]);
  });
});

describe("teammem init --repo: the namespace from the remote", () => {
  it.each([
    ["git@github.com:acme/web.git", "acme/web"],
    ["git@github.com:acme/web", "acme/web"],
    ["ssh://git@github.com/acme/web.git", "acme/web"],
    ["ssh://git@git.example.com:2222/acme/web.git", "acme/web"],
    ["https://github.com/acme/web", "acme/web"],
    ["https://github.com/acme/web.git", "acme/web"],
    ["https://github.com/acme/web/", "acme/web"],
    ["https://gitlab.com/group/subgroup/repo.git", "group/subgroup/repo"],
    ["git@gitlab.example.com:group/subgroup/repo.git", "group/subgroup/repo"],
    ["https://git.example.com/Acme/Web.git", "acme/web"],
  ])("names a folder's namespace after the remote %s: %s", async (url, namespace) => {
    const { base, env } = await sandbox();
    const repo = await makeRepo(join(base, "repo"), { origin: url });
    const dir = join(base, "mem");
    const init = await teammem(["init", "--server", OFFLINE, "--offline", "--dir", dir, "--repo", repo], env);
    expect([init.code, init.stderr]).toEqual([0, ""]);
    expect((await configOf(dir)).namespace).toBe(namespace);
    expect(init.stdout).toContain(`namespace ${namespace} from remote origin`);
  });

  it("never prints or stores a credential held in the remote URL", async () => {
    const { base, env } = await sandbox();
    const token = fakeGithubPat();
    const repo = await makeRepo(join(base, "repo"), { origin: `https://x-access-token:${token}@github.com/acme/web.git` });
    const dir = join(base, "mem");
    const init = await teammem(["init", "--server", OFFLINE, "--offline", "--dir", dir, "--repo", repo], env);
    expect(init.code).toBe(0);
    expect(init.stdout).toContain("namespace acme/web from remote origin (https://github.com/acme/web.git)");
    expect(init.stdout + init.stderr).not.toContain(token);
    expect(await readFile(join(dir, ".teammem", "config.json"), "utf8")).not.toContain(token);
  });

  it("picks origin among several remotes, the only remote, or --remote; refuses otherwise", async () => {
    const { base, env } = await sandbox();
    const none = await makeRepo(join(base, "none"));
    const r = await teammem(["init", "--server", OFFLINE, "--offline", "--dir", join(base, "m1"), "--repo", none], env);
    expect([r.code, r.stderr]).toEqual([2, expect.stringContaining("has no git remote to name the namespace after; pass --namespace")]);
    expect(existsSync(join(base, "m1"))).toBe(false);

    const two = await makeRepo(join(base, "two"), { fork: "git@github.com:ann/web.git", upstream: "git@github.com:acme/web.git" });
    const ambiguous = await teammem(["init", "--server", OFFLINE, "--offline", "--dir", join(base, "m2"), "--repo", two], env);
    expect([ambiguous.code, ambiguous.stderr]).toEqual([2, expect.stringContaining('several remotes and none is "origin" (fork, upstream)')]);
    const chosen = await teammem(["init", "--server", OFFLINE, "--offline", "--dir", join(base, "m2"), "--repo", two, "--remote", "upstream"], env);
    expect(chosen.code).toBe(0);
    expect((await configOf(join(base, "m2"))).namespace).toBe("acme/web");
    const missing = await teammem(["init", "--server", OFFLINE, "--offline", "--dir", join(base, "m3"), "--repo", two, "--remote", "nope"], env);
    expect([missing.code, missing.stderr]).toEqual([2, expect.stringContaining("--remote nope: no such remote")]);

    const local = await makeRepo(join(base, "local"), { origin: "/srv/git/web.git" });
    const localInit = await teammem(["init", "--server", OFFLINE, "--offline", "--dir", join(base, "m4"), "--repo", local], env);
    expect([localInit.code, localInit.stderr]).toEqual([2, expect.stringContaining("the remote is a local path")]);

    const overridden = await teammem(["init", "--server", OFFLINE, "--offline", "--dir", join(base, "m5"), "--repo", local, "--namespace", "acme/local"], env);
    expect(overridden.code).toBe(0);
    expect((await configOf(join(base, "m5"))).namespace).toBe("acme/local");
  });

  it("refuses --repo on a command other than init without --agent", async () => {
    const { base, env } = await sandbox();
    const repo = await makeRepo(join(base, "repo"), { origin: "git@github.com:acme/web.git" });
    const r = await teammem(["status", "--repo", repo], env);
    expect([r.code, r.stderr]).toEqual([2, expect.stringContaining("--repo finds an agent's memory folder: add --agent claude-code")]);
  });
});
