/**
 * `teammem watch` as a real process (the built binary, `npx tsc -b` first) against a real server in
 * this process (issue 9): signals, the pid of a running watch, nothing lost on SIGKILL, a killed
 * watch's lock taken over at once.
 * Waits poll for outcomes with generous limits; nothing asserts how long anything took.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { CLIENT_CLI as CLI } from "../../scripts/lib/processes.mjs";
import { teammem, tempDir } from "../support/cli.js";
import { dumpAllRows, startTestServer } from "../support/server.js";
import { poller } from "../support/until.js";

const until = poller({ timeoutMs: 30_000, everyMs: 100 });

/** `teammem watch --json --dir dir` as a child process; its JSON lines parsed as they come. */
function watchProcess(dir: string, env: Record<string, string>) {
  const child: ChildProcess = spawn(process.execPath, [CLI, "watch", "--json", "--dir", dir], {
    env: { ...process.env, TEAMMEM_TOKEN: "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (b) => (stdout += b));
  child.stderr!.on("data", (b) => (stderr += b));
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  onTestFinished(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await exited;
  });
  const events = () =>
    stdout
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map((l) => JSON.parse(l) as { type: string; [k: string]: unknown });
  return { child, exited, events, stdout: () => stdout, stderr: () => stderr, has: (type: string) => events().some((e) => e.type === type) };
}

describe("teammem watch as a process", () => {
  it("refuses a second watch with the first's pid; SIGTERM sends what was just saved and exits 0; SIGKILL loses nothing queued", async () => {
    expect(existsSync(CLI), `${CLI} is missing: run \`npx tsc -b\` first`).toBe(true);
    const server = await startTestServer("postgres");
    onTestFinished(() => server.dispose());
    const root = await tempDir();
    onTestFinished(() => root.remove());
    const a = join(root.path, "a");
    const env = { TEAMMEM_TOKEN: await server.token("alice") };
    expect((await teammem(["init", "--dir", a, "--server", server.url, "--namespace", "acme-web"], env)).code).toBe(0);

    const first = watchProcess(a, env);
    await until("the first watch to start", () => first.has("started"));
    const second = watchProcess(a, env);
    expect(await second.exited).toBe(1);
    expect(second.stderr()).toContain(`teammem watch is already running on ${a} (pid ${first.child.pid})`);
    expect(JSON.parse(second.stdout())).toMatchObject({ ok: false, error: { code: "watch_running" } });

    // Saved just before the stop: sent by the stop's flush, even if its file event had not come yet.
    await until("the first sync", () => first.has("connected") || first.has("warning"));
    await writeFile(join(a, "team", "saved.md"), "saved just before SIGTERM\n");
    first.child.kill("SIGTERM");
    expect(await first.exited).toBe(0);
    expect(first.events().at(-1)).toMatchObject({ type: "stopped", exitCode: 0, pending: 0 });
    expect(await dumpAllRows(server.database)).toContain("saved just before SIGTERM");
    expect(existsSync(join(a, ".teammem", "watch.pid"))).toBe(false);

    // Server away: the change is queued in the outbox; the watch is killed outright; a sync sends it.
    await server.stop();
    const third = watchProcess(a, env);
    await until("the third watch to start", () => third.has("started"));
    await writeFile(join(a, "team", "offline.md"), "written while the server was away\n");
    await until("the change to be queued and its push to fail", async () => {
      const st = JSON.parse((await teammem(["status", "--dir", a, "--json"])).stdout);
      return st.pending.some((p: { path: string }) => p.path === "team/offline.md") && third.events().some((e) => e.type === "disconnected");
    });
    third.child.kill("SIGKILL");
    await third.exited;
    await server.start();
    // A command lock left by the killed watch (if it died mid-sync) is taken over at once.
    await until("a sync after the kill", async () => (await teammem(["sync", "--dir", a], env)).code === 0, 60_000);
    expect(await dumpAllRows(server.database)).toContain("written while the server was away");
  });

  it("takes over at once the watch lock of a watch killed outright (SIGKILL), saying so with its pid; a running watch's lock is never taken", async () => {
    expect(existsSync(CLI), `${CLI} is missing: run \`npx tsc -b\` first`).toBe(true);
    const server = await startTestServer("postgres");
    onTestFinished(() => server.dispose());
    const root = await tempDir();
    onTestFinished(() => root.remove());
    const a = join(root.path, "a");
    const env = { TEAMMEM_TOKEN: await server.token("alice") };
    expect((await teammem(["init", "--dir", a, "--server", server.url, "--namespace", "acme-web"], env)).code).toBe(0);

    const killed = watchProcess(a, env);
    await until("the first watch to start", () => killed.has("started"));
    const refused = watchProcess(a, env);
    expect(await refused.exited).toBe(1); // its holder is alive: never taken
    killed.child.kill("SIGKILL");
    await killed.exited;
    expect(existsSync(join(a, ".teammem", "watch.lock"))).toBe(true); // left behind

    const next = watchProcess(a, env);
    await until("the next watch to start or end", () => next.child.exitCode !== null || next.has("started"));
    expect([next.child.exitCode, next.stderr()]).toEqual([null, ""]);
    expect(next.events().filter((e) => e.type === "warning" && String(e.message).startsWith("took over"))).toEqual([
      { at: expect.any(String), type: "warning", message: `took over the lock of a watch that ended (pid ${killed.child.pid})` },
    ]);
    const third = watchProcess(a, env); // the lock taken over is held as any other
    expect(await third.exited).toBe(1);
    expect(third.stderr()).toContain(`teammem watch is already running on ${a} (pid ${next.child.pid})`);

    next.child.kill("SIGTERM");
    expect(await next.exited).toBe(0);
    expect(["watch.lock", "watch.lock.holder", "watch.pid"].filter((f) => existsSync(join(a, ".teammem", f)))).toEqual([]);
  });
});
