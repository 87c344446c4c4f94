/** `teammem doctor` (issue 13): checks a setup end to end against a real server and says what to fix. */
import { mkdir, realpath, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { teammem, tempDir } from "../support/cli.js";
import { makeRepo } from "../support/git.js";
import { startTestServer } from "../support/server.js";

interface Check {
  check: string;
  status: string;
  detail: string;
  fix?: string;
}

async function doctor(args: string[], env: Record<string, string>, cwd?: string): Promise<{ code: number; checks: Check[]; stdout: string }> {
  const r = await teammem(["doctor", ...args, "--json"], env, cwd ? { cwd } : {});
  const parsed = JSON.parse(r.stdout) as { ok: boolean; checks: Check[] };
  expect(parsed.ok).toBe(r.code === 0);
  return { code: r.code, checks: parsed.checks, stdout: r.stdout };
}

const byName = (checks: Check[]) => Object.fromEntries(checks.map((c) => [c.check, c]));

describe("teammem doctor", () => {
  it("passes a healthy Claude Code setup, then names each thing that breaks and how to fix it", async () => {
    const server = await startTestServer("pglite");
    onTestFinished(() => server.dispose());
    const root = await tempDir("teammem-doctor-");
    onTestFinished(() => root.remove());
    const base = await realpath(root.path);
    const home = join(base, "home");
    await mkdir(home);
    const env = { HOME: home, PATH: "" };
    const repo = await makeRepo(join(base, "web"), { origin: "git@github.com:acme/web.git" });
    const token = await server.token("ann", "acme", "member", 30 * 86_400);
    expect((await teammem(["init", "--server", server.url, "--agent", "claude-code", "--repo", repo, "--token", token], env)).code).toBe(0);
    expect((await teammem(["hooks", "install", "--agent", "claude-code"], env, { cwd: repo })).code).toBe(0);
    const memory = join(home, ".claude", "projects", repo.replace(/[^a-zA-Z0-9]/g, "-"), "memory");

    const healthy = await doctor(["--agent", "claude-code"], env, repo);
    expect(healthy.code).toBe(0);
    expect(byName(healthy.checks)).toMatchObject({
      folder: { status: "ok", detail: `${memory}: namespace acme/web at ${server.url}` },
      "agent folder": { status: "ok", detail: `Claude Code's memory folder of ${repo}` },
      server: { status: "ok", detail: expect.stringMatching(/reachable: teammem server \d+\.\d+\.\d+$/) },
      token: { status: "ok", detail: expect.stringMatching(/^from the stored token: team acme, user ann, role member; expires \S+ \(in 29 day\(s\)\)$/) },
      namespace: { status: "ok", detail: "acme/web exists on the server" },
      hooks: { status: "ok", detail: expect.stringContaining(join(home, ".claude", "settings.json")) },
      "team folder": { status: "ok" },
    });
    expect(healthy.stdout).not.toContain(token);
    const text = await teammem(["doctor", "--agent", "claude-code"], env, { cwd: repo });
    expect(text.stdout).toMatch(/^ok {4}folder {8}/);

    // memory warnings and queued work (server down), reported with fixes
    await writeFile(join(memory, "team", "MEMORY.md"), "- [Gone](gone.md)\n");
    await server.stop();
    const down = await doctor(["--agent", "claude-code"], env, repo);
    expect(down.code).toBe(1);
    expect(byName(down.checks)).toMatchObject({
      server: { status: "fail", detail: expect.stringContaining(`cannot reach ${server.url}`), fix: expect.stringContaining("server runs") },
      token: { status: "info", detail: expect.stringContaining("not checked: server not reached") },
      memory: { status: "warn", detail: "1 memory warning(s)", fix: "teammem check lists them" },
    });
    await server.start();

    // a refused token
    const refused = await doctor(["--agent", "claude-code"], { ...env, TEAMMEM_TOKEN: "not.a.jwt" }, repo);
    expect(refused.code).toBe(1);
    expect(byName(refused.checks)["token"]).toMatchObject({ status: "fail", detail: expect.stringContaining("from TEAMMEM_TOKEN: refused by the server (unauthorized"), fix: expect.any(String) });

    // a token about to expire
    const soon = await doctor(["--agent", "claude-code", "--token", await server.token("ann", "acme", "member", 2 * 86_400)], env, repo);
    expect(soon.code).toBe(0);
    expect(byName(soon.checks)["token"]).toMatchObject({ status: "warn", detail: expect.stringContaining("from --token"), fix: expect.any(String) });

    // Claude Code moved the project's memory (autoMemoryDirectory): this folder is no longer the one it reads
    await writeFile(join(home, ".claude", "settings.json"), JSON.stringify({ autoMemoryDirectory: join(home, "elsewhere") }));
    const moved = await doctor(["--dir", memory], env);
    expect(byName(moved.checks)["agent folder"]).toMatchObject({ status: "warn", detail: expect.stringContaining(`now keeps ${repo}'s memory in ${join(home, "elsewhere")}`) });
    expect(byName(moved.checks)["hooks"]).toMatchObject({ status: "info", fix: "teammem hooks install --agent claude-code" });
  });

  it("fails a folder not set up, or without a token, saying how to set it up", async () => {
    const root = await tempDir("teammem-doctor-");
    onTestFinished(() => root.remove());
    const none = await doctor(["--dir", join(root.path, "nothing")], {});
    expect(none.code).toBe(1);
    expect(none.checks).toEqual([{ check: "folder", status: "fail", detail: expect.stringContaining("is not set up for teammem"), fix: expect.stringContaining("teammem init") }]);

    const dir = join(root.path, "mem");
    expect((await teammem(["init", "--dir", dir, "--server", "http://127.0.0.1:4", "--offline", "--namespace", "acme/web"])).code).toBe(0);
    const noToken = await doctor(["--dir", dir], {});
    expect(noToken.code).toBe(1);
    expect(byName(noToken.checks)["token"]).toEqual({ check: "token", status: "fail", detail: "no token", fix: expect.stringContaining("TEAMMEM_TOKEN") });
    expect(byName(noToken.checks)["agent folder"]).toMatchObject({ status: "info", detail: "a plain folder (no agent recorded)" });
  });
});
