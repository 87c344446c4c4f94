/**
 * Issue 13: Claude Code's hooks as Claude Code runs them. A temporary HOME holds Claude Code's
 * layout and a user settings file with hooks of its own; `teammem hooks install` merges teammem's,
 * and each installed command is run the way Claude Code runs a hook (`sh -c <command>`, the hook's
 * JSON on stdin, the project folder as cwd and CLAUDE_PROJECT_DIR) against the built binary and a
 * real server. `hooks uninstall` gives back the user's settings exactly.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { createServer, type Socket } from "node:net";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { fakeGithubPat } from "@teammem/scanner/testing";
import { CLIENT_CLI as CLI } from "../../scripts/lib/processes.mjs";
import { teammem, tempDir } from "../support/cli.js";
import { makeRepo } from "../support/git.js";
import { dumpAllRows, startTestServer } from "../support/server.js";

interface HookRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs one hook command as Claude Code does: through sh, JSON on stdin. */
function runHook(command: string, payload: unknown, env: Record<string, string>, cwd: string): Promise<HookRun> {
  return new Promise((resolve, reject) => {
    const child = spawn("sh", ["-c", command], { cwd, env: { PATH: process.env["PATH"] ?? "", ...env }, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(JSON.stringify(payload));
  });
}

/** The user's own settings, with hooks on the events teammem also uses. */
const userSettings = {
  model: "opus",
  permissions: { allow: ["Bash(npm test)"], deny: ["Read(./.env)"] },
  hooks: {
    PostToolUse: [{ matcher: "Edit|Write", hooks: [{ type: "command", command: "npx prettier --write \"$(jq -r .tool_input.file_path)\"", timeout: 30 }] }],
    SessionStart: [{ hooks: [{ type: "command", command: "echo 'remember: pnpm'" }] }],
    Stop: [{ hooks: [{ type: "command", command: "say done" }] }],
  },
};

type Settings = { hooks: Record<string, { matcher?: string; hooks: { command: string }[] }[]> };
const commandOf = (settings: Settings, event: string) => settings.hooks[event]!.flatMap((g) => g.hooks).find((h) => h.command.includes("--hook claude-code"))!.command;

describe("teammem's Claude Code hooks, run as Claude Code runs them", () => {
  it("install merges with the user's hooks, sync/scan/push hooks work against a real server, uninstall restores the settings", async () => {
    expect(existsSync(CLI), `${CLI} is missing: run \`npx tsc -b\` first`).toBe(true);
    const server = await startTestServer("pglite");
    onTestFinished(() => server.dispose());
    const root = await tempDir("teammem-hooks-");
    onTestFinished(() => root.remove());
    const base = await realpath(root.path);
    const home = join(base, "home");
    await mkdir(join(home, ".claude"), { recursive: true });
    const settingsFile = join(home, ".claude", "settings.json");
    const original = JSON.stringify(userSettings, null, 2) + "\n";
    await writeFile(settingsFile, original);
    const repo = await makeRepo(join(base, "src", "web"), { origin: "git@github.com:acme/web.git" });
    const env = { HOME: home };
    const token = await server.token("ann");
    expect((await teammem(["init", "--server", server.url, "--agent", "claude-code", "--repo", repo, "--token", token], env)).code).toBe(0);
    const memory = join(home, ".claude", "projects", repo.replace(/[^a-zA-Z0-9]/g, "-"), "memory");

    // install: merged, idempotent
    const command = `${process.execPath} ${CLI}`;
    const install = await teammem(["hooks", "install", "--agent", "claude-code", "--command", command], env, { cwd: repo });
    expect([install.code, install.stderr]).toEqual([0, ""]);
    expect(install.stdout).toContain(`installed: teammem's Claude Code hooks in ${settingsFile} (user settings)`);
    const installed = JSON.parse(await readFile(settingsFile, "utf8")) as Settings & typeof userSettings;
    expect(installed.model).toBe("opus");
    expect(installed.permissions).toEqual(userSettings.permissions);
    expect(installed.hooks.Stop).toEqual(userSettings.hooks.Stop);
    expect(installed.hooks.PostToolUse[0]).toEqual(userSettings.hooks.PostToolUse[0]);
    expect(installed.hooks.SessionStart[0]).toEqual(userSettings.hooks.SessionStart[0]);
    expect(commandOf(installed, "PreToolUse")).toBe(`${command} scan --hook claude-code`);
    const afterFirst = await readFile(settingsFile, "utf8");
    const again = await teammem(["hooks", "install", "--agent", "claude-code", "--command", command], env, { cwd: repo });
    expect(again.stdout).toContain("already installed (unchanged)");
    expect(await readFile(settingsFile, "utf8")).toBe(afterFirst);

    const hookEnv = { HOME: home, CLAUDE_PROJECT_DIR: repo };
    const session = { session_id: "s1", transcript_path: join(home, "t.jsonl"), cwd: repo, hook_event_name: "SessionStart", source: "startup" };
    const tool = (event: string, name: string, toolInput: object) => ({ session_id: "s1", cwd: repo, hook_event_name: event, tool_name: name, tool_input: toolInput });

    // SessionStart: a teammate's change arrives and the agent is told
    const teammate = join(base, "teammate");
    expect((await teammem(["init", "--dir", teammate, "--server", server.url, "--namespace", "acme/web", "--token", await server.token("bob")])).code).toBe(0);
    await writeFile(join(teammate, "team", "build.md"), "Run make check before pushing.\n");
    expect((await teammem(["sync", "--dir", teammate])).code).toBe(0);
    const start = await runHook(commandOf(installed, "SessionStart"), session, hookEnv, repo);
    expect([start.code, start.stdout]).toEqual([0, "teammem: team memory (namespace acme/web) has 1 change(s) from teammates since the last session: team/build.md.\n"]);
    expect(await readFile(join(memory, "team", "build.md"), "utf8")).toBe("Run make check before pushing.\n");

    // PreToolUse: a write that would add a credential to team memory is refused before it reaches disk
    const secret = fakeGithubPat();
    const leakPath = join(memory, "team", "deploy.md");
    const refused = await runHook(commandOf(installed, "PreToolUse"), tool("PreToolUse", "Write", { file_path: leakPath, content: `# Deploy\nGITHUB_TOKEN=${secret}\n` }), hookEnv, repo);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("team/deploy.md:2:github-pat");
    expect(refused.stdout + refused.stderr).not.toContain(secret);
    const editIn = await runHook(commandOf(installed, "PreToolUse"), tool("PreToolUse", "Edit", { file_path: join(memory, "team", "build.md"), old_string: "make check", new_string: `make check ${secret}` }), hookEnv, repo);
    expect([editIn.code, editIn.stderr]).toEqual([2, expect.stringContaining("team/build.md:1:github-pat")]);
    const clean = await runHook(commandOf(installed, "PreToolUse"), tool("PreToolUse", "Write", { file_path: leakPath, content: "# Deploy\nThe token is in 1Password: deploy-bot.\n" }), hookEnv, repo);
    expect([clean.code, clean.stdout, clean.stderr]).toEqual([0, "", ""]);
    const privateWrite = await runHook(commandOf(installed, "PreToolUse"), tool("PreToolUse", "Write", { file_path: join(memory, "notes.md"), content: secret }), hookEnv, repo);
    expect(privateWrite.code).toBe(0); // private memory never leaves the machine
    const elsewhere = await runHook(commandOf(installed, "PreToolUse"), tool("PreToolUse", "Write", { file_path: join(repo, "src.ts"), content: secret }), hookEnv, repo);
    expect(elsewhere.code).toBe(0);

    // PostToolUse: the written team file is pushed
    await writeFile(leakPath, "# Deploy\nThe token is in 1Password: deploy-bot.\n");
    const pushed = await runHook(commandOf(installed, "PostToolUse"), tool("PostToolUse", "Write", { file_path: leakPath, content: "..." }), hookEnv, repo);
    expect([pushed.code, pushed.stdout, pushed.stderr]).toEqual([0, "teammem: pushed team/deploy.md\n", ""]);
    expect(await dumpAllRows(server.database)).toContain("deploy-bot");
    // a credential that reached a team file some other way: not shared, and the agent is told where
    await writeFile(join(memory, "team", "env.md"), `x\ntoken ${secret}\n`);
    const held = await runHook(commandOf(installed, "PostToolUse"), tool("PostToolUse", "Write", { file_path: join(memory, "team", "env.md") }), hookEnv, repo);
    expect([held.code, held.stderr]).toEqual([2, expect.stringContaining("team/env.md:2:github-pat")]);
    expect(held.stdout + held.stderr).not.toContain(secret);
    await rm(join(memory, "team", "env.md"));
    // a private file is never pushed
    await writeFile(join(memory, "notes.md"), "private\n");
    const priv = await runHook(commandOf(installed, "PostToolUse"), tool("PostToolUse", "Write", { file_path: join(memory, "notes.md") }), hookEnv, repo);
    expect([priv.code, priv.stdout, priv.stderr]).toEqual([0, "", ""]);

    // server unreachable: exit 0, the change stays queued; the next session start sends it
    await server.stop();
    await writeFile(join(memory, "team", "offline.md"), "written offline\n");
    const offline = await runHook(commandOf(installed, "PostToolUse"), tool("PostToolUse", "Write", { file_path: join(memory, "team", "offline.md") }), hookEnv, repo);
    expect(offline.code).toBe(0);
    expect(offline.stderr).toContain("the change stays queued");
    const offlineStart = await runHook(commandOf(installed, "SessionStart"), session, hookEnv, repo);
    expect(offlineStart.code).toBe(0);
    await server.start();
    expect((await runHook(commandOf(installed, "SessionStart"), session, hookEnv, repo)).code).toBe(0);
    expect(await dumpAllRows(server.database)).toContain("written offline");

    // a project whose memory folder is not set up: the hooks do nothing
    const other = await makeRepo(join(base, "src", "other"), { origin: "git@github.com:acme/other.git" });
    const none = await runHook(commandOf(installed, "SessionStart"), { ...session, cwd: other }, { HOME: home, CLAUDE_PROJECT_DIR: other }, other);
    expect([none.code, none.stdout, none.stderr]).toEqual([0, "", ""]);
    // garbage on stdin never blocks the agent
    const garbage = await runHook(commandOf(installed, "PreToolUse"), "not a hook object", hookEnv, repo);
    expect(garbage.code).toBe(0);

    // uninstall: the user's settings exactly as they were
    const uninstall = await teammem(["hooks", "uninstall", "--agent", "claude-code"], env, { cwd: repo });
    expect(uninstall.stdout).toBe(`removed 3 teammem hook(s) from ${settingsFile}; other hooks and settings are untouched\n`);
    expect(await readFile(settingsFile, "utf8")).toBe(original);
    expect((await teammem(["hooks", "uninstall", "--agent", "claude-code"], env, { cwd: repo })).stdout).toContain("no teammem hooks");
  }, 180_000); // an embedded-database server and a dozen real hook processes: minutes on a loaded machine

  it("bounds a hook's time when the server accepts connections and never answers", async () => {
    const hung: Socket[] = [];
    const blackhole = createServer((socket) => void hung.push(socket));
    await new Promise<void>((r) => blackhole.listen(0, "127.0.0.1", r));
    onTestFinished(() => {
      for (const s of hung) s.destroy();
      blackhole.close();
    });
    const address = blackhole.address();
    const port = typeof address === "object" && address ? address.port : 0;
    const root = await tempDir("teammem-hooks-");
    onTestFinished(() => root.remove());
    const dir = join(await realpath(root.path), "mem");
    // --offline: init does not call the server (which never answers); the hook takes the token from the environment
    expect((await teammem(["init", "--dir", dir, "--server", `http://127.0.0.1:${port}`, "--namespace", "acme/web", "--offline"])).code).toBe(0);
    await writeFile(join(dir, "team", "a.md"), "a\n");
    const command = `${process.execPath} ${CLI} push --hook claude-code`;
    const payload = { hook_event_name: "PostToolUse", tool_name: "Write", tool_input: { file_path: join(dir, "team", "a.md") } };
    const run = await runHook(command, payload, { TEAMMEM_TOKEN: "tok" }, dir);
    expect(run.code).toBe(0);
    // the first request's 3 s timeout, or the hook's overall budget (6 s for a push), which cuts off
    // the request it is waiting for (39b83ac) or refuses the next
    expect(run.stderr).toMatch(/no answer within 3000 ms|time budget of 6000 ms (?:is spent|ran out)/);
    expect(run.stderr).toContain("the change stays queued");
    expect(JSON.parse((await teammem(["status", "--dir", dir, "--json"])).stdout).pending).toEqual([expect.objectContaining({ path: "team/a.md" })]);
  });

  it("installs into the project's shared or local settings and leaves their other content alone", async () => {
    const root = await tempDir("teammem-hooks-");
    onTestFinished(() => root.remove());
    const base = await realpath(root.path);
    const repo = await makeRepo(join(base, "web"), { origin: "git@github.com:acme/web.git" });
    await mkdir(join(repo, ".claude"));
    const shared = JSON.stringify({ permissions: { allow: ["Bash(make check)"] }, hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "./guard.sh" }] }] } }, null, 2) + "\n";
    await writeFile(join(repo, ".claude", "settings.json"), shared);
    const env = { HOME: join(base, "home"), PATH: "" };
    const project = await teammem(["hooks", "install", "--agent", "claude-code", "--scope", "project", "--repo", repo], env);
    expect(project.code).toBe(0);
    expect(project.stderr).toContain("each teammate needs it on PATH");
    const merged = JSON.parse(await readFile(join(repo, ".claude", "settings.json"), "utf8")) as Settings;
    expect(commandOf(merged, "PostToolUse")).toBe("teammem push --hook claude-code"); // no path of this machine in a shared file
    expect(merged.hooks["PreToolUse"]![0]).toEqual({ matcher: "Bash", hooks: [{ type: "command", command: "./guard.sh" }] });
    expect((await teammem(["hooks", "uninstall", "--agent", "claude-code", "--scope", "project", "--repo", repo], env)).code).toBe(0);
    expect(await readFile(join(repo, ".claude", "settings.json"), "utf8")).toBe(shared);

    const local = await teammem(["hooks", "install", "--agent", "claude-code", "--scope", "local"], env, { cwd: repo });
    expect(local.stdout).toContain(join(repo, ".claude", "settings.local.json"));
    // not on PATH, and a file of this user only: this installation, by absolute path
    expect(commandOf(JSON.parse(await readFile(join(repo, ".claude", "settings.local.json"), "utf8")) as Settings, "SessionStart")).toBe(
      `${process.execPath} ${join(CLI, "..", "..", "bin", "teammem.js")} sync --hook claude-code`,
    );

    // refusals change nothing
    await writeFile(join(repo, ".claude", "settings.json"), "{ broken");
    const broken = await teammem(["hooks", "install", "--agent", "claude-code", "--scope", "project", "--repo", repo], env);
    expect([broken.code, broken.stderr]).toEqual([1, expect.stringContaining("is not valid JSON")]);
    expect(await readFile(join(repo, ".claude", "settings.json"), "utf8")).toBe("{ broken");
    for (const [args, message] of [
      [["--agent", "codex"], "no hooks for Codex"],
      [["--agent", "cursor"], "--agent must be claude-code"],
      [["--agent", "claude-code", "--scope", "team"], "--scope must be one of user, project, local"],
      [["--agent", "claude-code", "--command", ""], "--command must be one line"],
    ] as const) {
      const r = await teammem(["hooks", "install", ...args], env, { cwd: repo });
      expect([r.code, r.stderr]).toEqual([2, expect.stringContaining(message)]);
    }
  });
});
