/**
 * `teammem watch` (issue 9, "Client teammem watch"): two teammates' folders kept in sync by two
 * watches (the `Watch` instance the command runs, in this process) on one real server.
 * Every wait polls for an outcome with a generous limit; nothing asserts how long anything took.
 */
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { layoutOf, Watch, type LiveEvent, type WatchOptions } from "@teammem/client";
import { fakeGithubPat } from "@teammem/scanner/testing";
import { teammem } from "../support/cli.js";
import { setup, status } from "../support/clients.js";
import { dumpAllRows } from "../support/server.js";

/** Polls `check` until it returns something truthy (every 50 ms, at most `timeoutMs`). */
async function until<T>(what: string, check: () => T | Promise<T>, timeoutMs = 20_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A started watch of `dir` with `token`; its log collected in `events`; stopped after the test. */
async function watch(dir: string, token: string, options: Partial<WatchOptions> = {}) {
  const events: LiveEvent[] = [];
  const w = new Watch(layoutOf(dir), { token, log: (e) => events.push(e), backoff: { baseMs: 100, capMs: 1000 }, ...options });
  await w.start();
  onTestFinished(() => w.stop().then(() => undefined));
  const synced = (path: string) => until(`${path} synced`, () => events.some((e) => e.type === "synced" && e.path === path));
  const live = () => until("the live stream", () => events.some((e) => e.type === "connected"));
  return { watch: w, events, synced, live };
}


describe("teammem watch", () => {
  it("holds back a file with a credential and logs file:line:rule; status works while it runs; a second watch is refused with the pid", async () => {
    const { server, a, envA } = await setup("postgres");
    const token = envA.TEAMMEM_TOKEN!;
    const w = await watch(a, token);
    const secret = fakeGithubPat();
    await writeFile(join(a, "team", "deploy.md"), `# Deploy\n\nuse ${secret} for the registry\n`);
    await writeFile(join(a, "team", "notes.md"), "clean notes\n");
    await w.synced("team/notes.md");
    const held = await until("the held-back line", () => w.events.find((e) => e.type === "held-back"));
    expect(held).toEqual({
      type: "held-back",
      path: "team/deploy.md",
      findings: [{ ruleId: "github-pat", label: expect.any(String), line: 3, column: 5 }],
      pathFindings: [],
    });
    expect(JSON.stringify(w.events)).not.toContain(secret);
    expect(await dumpAllRows(server.database)).not.toContain(secret);
    expect(await dumpAllRows(server.database)).toContain("clean notes");

    // Read-only and settling commands work while the watch runs.
    const st = await status(a);
    expect(st.heldBack.map((h: { path: string }) => h.path)).toEqual(["team/deploy.md"]);
    const resolve = await teammem(["resolve", "--dir", a, "team/notes.md"], envA);
    expect([resolve.code, resolve.stderr]).toEqual([1, "teammem: no open conflict for team/notes.md (teammem status lists the conflicts) [failed]\n"]);

    const second = await teammem(["watch", "--dir", a], envA);
    expect(second.code).toBe(1);
    expect(second.stderr).toBe(
      `teammem: teammem watch is already running on ${a} (pid ${process.pid}); stop it first (a watch that was killed frees the folder within 30 s) [watch_running]\n`,
    );

    // The held-back file is logged once, not at every later run.
    await writeFile(join(a, "team", "more.md"), "more\n");
    await w.synced("team/more.md");
    expect(w.events.filter((e) => e.type === "held-back")).toHaveLength(1);
    const end = await w.watch.stop();
    expect(end).toEqual({ exitCode: 0, pending: 0 });
    expect(existsSync(join(a, ".teammem", "watch.pid"))).toBe(false);
  });

  it("stops with exit code 1 and says why when the token is revoked", async () => {
    const { server, a, envA } = await setup("postgres");
    const token = envA.TEAMMEM_TOKEN!;
    const w = await watch(a, token);
    await writeFile(join(a, "team", "one.md"), "one\n");
    await w.synced("team/one.md");
    const admin = await server.token("root", "default", "admin");
    const tokenId = JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString("utf8")).jti as string;
    const revoked = await fetch(`${server.url}/v1/admin/tokens/${tokenId}`, { method: "DELETE", headers: { authorization: `Bearer ${admin}` } });
    expect(revoked.status).toBe(200);
    await writeFile(join(a, "team", "two.md"), "two\n"); // the next push meets the revocation, if the stream did not already
    const end = await until("the watch to end", () => Promise.race([w.watch.ended, new Promise<undefined>((r) => setTimeout(() => r(undefined), 100))]), 30_000);
    expect(end.exitCode).toBe(1);
    expect(end.code).toBe("token_revoked");
    expect(end.message).toContain("get a new token (teammem init --token T, or TEAMMEM_TOKEN) and start teammem watch again");
    expect(w.events.at(-1)).toMatchObject({ type: "stopped", exitCode: 1 });
    // Nothing is lost: the refused change stays queued for the next sync with a valid token.
    expect((await status(a)).pending).toEqual([expect.objectContaining({ path: "team/two.md" })]);
  });
});
