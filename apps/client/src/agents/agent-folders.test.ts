import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { claudeConfigDir, claudeMemoryDir, claudeProjectKey, codexMemoryDir } from "./agent-folders.js";

async function home(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "teammem-home-"));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

describe("Claude Code's project key", () => {
  it.each([
    ["/home/ann/src/web", "-home-ann-src-web"],
    ["/Users/me/code/my.app_dev", "-Users-me-code-my-app-dev"],
    ["/srv/web-client", "-srv-web-client"],
    ["/home/ann/café", "-home-ann-caf-"],
    ["/home/ann/😀", "-home-ann---"], // one character, two UTF-16 units, two dashes (as Claude Code's JavaScript does)
  ])("keys %j as %j", (root, key) => {
    expect(claudeProjectKey(root)).toBe(key);
  });

  it("cuts a key over 200 characters to 200 and appends the root's hash", () => {
    const root = `/home/ann/${"deep/".repeat(50)}repo`;
    const key = claudeProjectKey(root);
    expect(key.slice(0, 200)).toBe(root.replace(/[^a-zA-Z0-9]/g, "-").slice(0, 200));
    expect(key).toMatch(/^.{200}-[0-9a-z]+$/);
    expect(claudeProjectKey(`${root}2`)).not.toBe(key);
    expect(claudeProjectKey("x".repeat(200))).toBe("x".repeat(200)); // exactly 200: kept whole
  });

  it("pins the hash of Claude Code's Node build (djb2Hash: h*31+c in 32 bits, absolute value, base 36)", () => {
    expect(claudeProjectKey(`/${"a".repeat(200)}`)).toBe(`-${"a".repeat(199)}-b6ymvl`);
  });
});

describe("agent memory folders", () => {
  it("puts Claude Code's memory under ~/.claude/projects/<key>/memory, or under $CLAUDE_CONFIG_DIR", async () => {
    const h = await home();
    expect(await claudeMemoryDir({ HOME: h }, "/src/web")).toEqual({
      dir: join(h, ".claude", "projects", "-src-web", "memory"),
      projectKey: "-src-web",
      source: "Claude Code's project key for /src/web",
    });
    expect(claudeConfigDir({ HOME: h, CLAUDE_CONFIG_DIR: "/etc/cc" })).toBe("/etc/cc");
    expect((await claudeMemoryDir({ HOME: h, CLAUDE_CONFIG_DIR: join(h, "cc") }, "/src/web")).dir).toBe(join(h, "cc", "projects", "-src-web", "memory"));
  });

  it("prefers an existing folder sharing the first 200 characters of a long key (the native build hashes differently)", async () => {
    const h = await home();
    const root = `/home/ann/${"deep/".repeat(50)}repo`;
    const prefix = claudeProjectKey(root).slice(0, 200);
    await mkdir(join(h, ".claude", "projects", `${prefix}-zzbun1`), { recursive: true });
    expect((await claudeMemoryDir({ HOME: h }, root)).projectKey).toBe(`${prefix}-zzbun1`);
    // two candidates: no guess, the Node form
    await mkdir(join(h, ".claude", "projects", `${prefix}-zzbun2`), { recursive: true });
    expect((await claudeMemoryDir({ HOME: h }, root)).projectKey).toBe(claudeProjectKey(root));
  });

  it("follows autoMemoryDirectory of the project's local settings, then of the user's settings, never of the shared project settings", async () => {
    const h = await home();
    const repo = join(h, "repo");
    await mkdir(join(repo, ".claude"), { recursive: true });
    await mkdir(join(h, ".claude"), { recursive: true });
    await writeFile(join(repo, ".claude", "settings.json"), JSON.stringify({ autoMemoryDirectory: "/tmp/evil" }));
    expect((await claudeMemoryDir({ HOME: h }, repo)).projectKey).toBe(claudeProjectKey(repo));
    await writeFile(join(h, ".claude", "settings.json"), JSON.stringify({ autoMemoryDirectory: "~/notes/claude" }));
    expect(await claudeMemoryDir({ HOME: h }, repo)).toMatchObject({ dir: join(h, "notes", "claude"), projectKey: null });
    await writeFile(join(repo, ".claude", "settings.local.json"), JSON.stringify({ autoMemoryDirectory: join(h, "local-mem") }));
    expect((await claudeMemoryDir({ HOME: h }, repo)).dir).toBe(join(h, "local-mem"));
    // unusable values are ignored
    await writeFile(join(repo, ".claude", "settings.local.json"), JSON.stringify({ autoMemoryDirectory: "relative/dir" }));
    expect((await claudeMemoryDir({ HOME: h }, repo)).dir).toBe(join(h, "notes", "claude"));
    await writeFile(join(h, ".claude", "settings.json"), "{ not json");
    expect((await claudeMemoryDir({ HOME: h }, repo)).projectKey).toBe(claudeProjectKey(repo));
  });

  it("puts Codex's memories under ~/.codex/memories, or under $CODEX_HOME", () => {
    expect(codexMemoryDir({ HOME: "/home/ann" })).toBe("/home/ann/.codex/memories");
    expect(codexMemoryDir({ HOME: "/home/ann", CODEX_HOME: "/opt/codex" })).toBe("/opt/codex/memories");
  });
});
