/**
 * `teammem watch` (issue 9, "Client teammem watch"): two teammates' folders kept in sync by two
 * watches (the `Watch` instance the command runs, in this process) on one real server.
 * Every wait polls for an outcome with a generous limit; nothing asserts how long anything took.
 */
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { formatLiveEvent, layoutOf, Watch, type LiveEvent, type WatchOptions } from "@teammem/client";
import { fakeGithubPat } from "@teammem/scanner/testing";
import { teammem } from "../support/cli.js";
import { setup, status, sync } from "../support/clients.js";
import { startNewEpoch } from "@teammem/server";
import { dumpAllRows } from "../support/server.js";
import { poller } from "../support/until.js";

const until = poller({ timeoutMs: 20_000, everyMs: 50 });

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

/** Two teammates' folders (A alice, B bob) on one PostgreSQL server, each watched, both subscribed to the stream. */
async function bothWatching() {
  const team = await setup("postgres");
  const wa = await watch(team.a, team.envA.TEAMMEM_TOKEN!);
  const wb = await watch(team.b, await team.server.token("bob"));
  await wa.live();
  await wb.live();
  return { ...team, wa, wb };
}

/** A server with A (not watched) and B watched and subscribed. */
async function bothWatchingOnlyB() {
  const team = await setup("postgres");
  const wb = { dir: team.b, ...(await watch(team.b, await team.server.token("bob"))) };
  await wb.live();
  return { ...team, wb };
}

const fileIs = (path: string, content: string) =>
  until(`${path} to hold the expected content`, async () => existsSync(path) && (await readFile(path, "utf8")) === content);

describe("teammem watch", () => {
  it("brings a file saved on A to B's disk through the stream, a large one (sent without inline content) too, and logs the teammate's change", async () => {
    const { a, b, wa, wb } = await bothWatching();
    await writeFile(join(a, "team", "build.md"), "# Build\n\n- node 20\n");
    await fileIs(join(b, "team", "build.md"), "# Build\n\n- node 20\n");
    const large = `# Log\n\n${"- a long line of notes about the build and the deploy\n".repeat(2000)}`; // ~110 KB: over the inline limit
    await writeFile(join(a, "team", "log.md"), large);
    await fileIs(join(b, "team", "log.md"), large);
    // B edits back; A gets it.
    await writeFile(join(b, "team", "build.md"), "# Build\n\n- node 20\n- npm ci, not npm install\n");
    await fileIs(join(a, "team", "build.md"), "# Build\n\n- node 20\n- npm ci, not npm install\n");
    const applied = (w: { events: LiveEvent[] }) => w.events.flatMap((e) => (e.type === "sync-event" ? [e.event] : []));
    await until("A to log bob's change", () => applied(wa).length > 0);
    expect(applied(wb)).toEqual([
      { type: "created", path: "team/build.md", author: "alice", version: 1 },
      { type: "created", path: "team/log.md", author: "alice", version: 1 },
    ]);
    expect(applied(wa)).toEqual([{ type: "updated", path: "team/build.md", author: "bob", version: 2 }]);
  });

  it("reconnects after a server restart and catches up with no gap and no duplicate", async () => {
    const { a, b, server, wa, wb } = await bothWatching();
    await writeFile(join(a, "team", "before.md"), "before\n");
    await fileIs(join(b, "team", "before.md"), "before\n");
    await server.stop();
    await until("both to notice", () => [wa, wb].every((w) => w.events.some((e) => e.type === "disconnected")));
    await writeFile(join(a, "team", "during.md"), "written while the server was down\n");
    await until("A to queue it", async () => (await status(a)).pending.length === 1);
    await server.start();
    for (let i = 0; i < 5; i++) await writeFile(join(a, "team", `after-${i}.md`), `after ${i}\n`);
    await fileIs(join(b, "team", "during.md"), "written while the server was down\n");
    for (let i = 0; i < 5; i++) await fileIs(join(b, "team", `after-${i}.md`), `after ${i}\n`);
    const applied = () => wb.events.flatMap((e) => (e.type === "sync-event" ? [`${e.event.type} ${"path" in e.event ? e.event.path : ""}`] : []));
    await until("B to log every change", () => applied().length >= 7);
    expect(applied().sort()).toEqual(["created team/after-0.md", "created team/after-1.md", "created team/after-2.md", "created team/after-3.md", "created team/after-4.md", "created team/before.md", "created team/during.md"]);
    expect(wb.events.filter((e) => e.type === "connected").length).toBeGreaterThanOrEqual(2);
    expect((await status(b)).cursor).toBe((await status(a)).cursor);
  });

  it("after a new server epoch (a restore), reconciles and resubscribes: files still travel both ways", async () => {
    const { a, b, server, wa, wb } = await bothWatching();
    await writeFile(join(a, "team", "one.md"), "one\n");
    await fileIs(join(b, "team", "one.md"), "one\n");
    await startNewEpoch(server.database.db, "test: a restore");
    // The server closes the streams with 4002 stale_cursor once it sees the new epoch (its identity cache lasts 5 s).
    const reconciling = (w: { events: LiveEvent[] }) => w.events.some((e) => e.type === "warning" && e.message.includes("reconciling"));
    await until("both watches to be told to reconcile", () => reconciling(wa) && reconciling(wb), 30_000);
    await until("both to subscribe again", () => [wa, wb].every((w) => w.events.filter((e) => e.type === "connected").length >= 2), 30_000);
    await writeFile(join(a, "team", "two.md"), "two\n");
    await fileIs(join(b, "team", "two.md"), "two\n");
    await writeFile(join(b, "team", "three.md"), "three\n");
    await fileIs(join(a, "team", "three.md"), "three\n");
    expect([wa, wb].map((w) => w.events.filter((e) => e.type === "stopped"))).toEqual([[], []]);
  });

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
      `teammem: teammem watch is already running on ${a} (pid ${process.pid}); stop it first (a watch that was killed frees the folder at once, or within 30 s if it ran on another machine) [watch_running]\n`,
    );

    // The held-back file is logged once, not at every later run.
    await writeFile(join(a, "team", "more.md"), "more\n");
    await w.synced("team/more.md");
    expect(w.events.filter((e) => e.type === "held-back")).toHaveLength(1);
    const end = await w.watch.stop();
    expect(end).toEqual({ exitCode: 0, pending: 0 });
    expect(existsSync(join(a, ".teammem", "watch.pid"))).toBe(false);
  });

  it("sends a held-back file once an admin approves its bypass, without another save, and logs the approval as the engine's bypass-decided event, not a warning (try18 F7)", async () => {
    const { server, a, envA } = await setup("postgres");
    const admin = await server.token("ada", "default", "admin");
    const w = await watch(a, envA.TEAMMEM_TOKEN!, { bypassCheckMs: 200 });
    await w.live();
    const secret = fakeGithubPat(77);
    await writeFile(join(a, "team", "fixture.md"), `# Fixture\ntoken ${secret}\n`);
    await until("the held-back line", () => w.events.find((e) => e.type === "held-back"));
    const fingerprint = (await status(a)).heldBack[0].findings[0].fingerprint as string;
    expect((await teammem(["sync", "--dir", a, "--allow", fingerprint, "--reason", "test_value", "a fixture"], envA)).code).toBe(0);
    const [request] = (await status(a)).bypasses;
    expect(request.status).toBe("pending");
    await new Promise((r) => setTimeout(r, 600)); // a few checks while pending: nothing sent, nothing logged
    expect(w.events.some((e) => e.type === "synced" && e.path === "team/fixture.md")).toBe(false);
    const res = await fetch(`${server.url}/v1/admin/bypasses/${request.id}/approve`, {
      method: "POST",
      headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
      body: JSON.stringify({ note: "fixture" }),
    });
    expect(res.status).toBe(200);
    await w.synced("team/fixture.md");
    // The engine's structured event (no reading of a message's text), logged once, never as a warning.
    const decided = { type: "bypass-decided", path: "team/fixture.md", line: 2, ruleId: "github-pat", status: "approved", by: "ada", note: "fixture" } as const;
    expect(w.events.filter((e) => e.type === "sync-event" && e.event.type === "bypass-decided")).toEqual([{ type: "sync-event", event: decided }]);
    expect(formatLiveEvent({ type: "sync-event", event: decided }, new Date(0), false)).toBe("00:00:00 bypass for team/fixture.md:2 github-pat was approved by ada: fixture\n");
    expect(w.events.filter((e) => e.type === "warning")).toEqual([]);
    expect((await status(a)).bypasses[0].status).toBe("approved");
  });

  it("stops with exit code 1 and says why when the token is revoked", async () => {
    const { server, a, envA } = await setup("postgres");
    const token = envA.TEAMMEM_TOKEN!;
    const w = await watch(a, token);
    await w.live();
    await writeFile(join(a, "team", "one.md"), "one\n");
    await w.synced("team/one.md");
    const admin = await server.token("root", "default", "admin");
    const tokenId = JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString("utf8")).jti as string;
    const revoked = await fetch(`${server.url}/v1/admin/tokens/${tokenId}`, { method: "DELETE", headers: { authorization: `Bearer ${admin}` } });
    expect(revoked.status).toBe(200);
    // The server closes the revoked token's stream (4401) within seconds; the watch stops, no retries.
    const end = await until("the watch to end", () => Promise.race([w.watch.ended, new Promise<undefined>((r) => setTimeout(() => r(undefined), 100))]), 30_000);
    expect(end.exitCode).toBe(1);
    expect(end.code).toBe("token_revoked");
    expect(end.message).toContain("get a new token (teammem init --token T, or TEAMMEM_TOKEN) and start teammem watch again");
    expect(w.events.at(-1)).toMatchObject({ type: "stopped", exitCode: 1 });
    expect(end.message).toContain("the server refused the change stream");
    expect(w.events.filter((e) => e.type === "disconnected")).toEqual([]);
  });
  it("teammem push of a file the watch also sees sends it once: one version, no conflict, nothing left queued (both take the folder's lock and the one send path)", async () => {
    const { a, envA, server } = await setup("postgres");
    const w = await watch(a, envA.TEAMMEM_TOKEN!);
    await w.live();
    let watchSent = 0;
    for (let round = 1; round <= 3; round++) {
      const text = `# Hook\n\nround ${round}\n`;
      await writeFile(join(a, "team", "hook.md"), text);
      const pushed = await teammem(["push", "--dir", a, join(a, "team", "hook.md")], envA);
      expect(pushed.code).toBe(0);
      expect(pushed.stdout).toMatch(/^(pushed team\/hook\.md: applied|nothing to push for .*)\n$/);
      // A later file's sync means the watch has handled hook.md's file event too.
      await writeFile(join(a, "team", `after-${round}.md`), "after\n");
      await w.synced(`team/after-${round}.md`);
      const sentByWatch = w.events.filter((e) => e.type === "synced" && e.path === "team/hook.md").length - watchSent;
      watchSent += sentByWatch;
      const sentByPush = pushed.stdout.startsWith("pushed") ? 1 : 0;
      const history = await (await fetch(`${server.url}/v1/namespaces/acme-web/history?path=hook.md`, { headers: { authorization: `Bearer ${envA.TEAMMEM_TOKEN}` } })).json();
      expect((history as { versions: unknown[] }).versions).toHaveLength(round);
      // Sent exactly once: by the push, or by the watch when its debounced run took the lock first.
      expect(sentByPush + sentByWatch).toBe(1);
    }
    expect(w.events.filter((e) => e.type === "sync-event" || (e.type === "synced" && e.result !== "applied"))).toEqual([]);
    expect((await status(a)).pending).toEqual([]);
  });

  it("writes a teammate's push of 300 files as pulls only: no upload attempt and no sync per written file, each file logged once (try18 F16)", async () => {
    const { a, envA, server, wb } = await bothWatchingOnlyB();
    await mkdir(join(a, "team", "many"), { recursive: true });
    for (let i = 0; i < 300; i++) await writeFile(join(a, "team", "many", `f${i}.md`), `# Note ${i}\n\nwhat we learned, part ${i}\n`);
    expect((await sync(a, envA)).code).toBe(0);
    const pushedByA = server.requests.length;
    for (let i = 0; i < 300; i++) await fileIs(join(wb.dir, "team", "many", `f${i}.md`), `# Note ${i}\n\nwhat we learned, part ${i}\n`);
    // A file saved on B afterwards: once it is synced, every file event of the pull was handled.
    await writeFile(join(wb.dir, "team", "after.md"), "after\n");
    await wb.synced("team/after.md");
    const byB = server.requests.slice(pushedByA);
    const applied = wb.events.flatMap((e) => (e.type === "sync-event" ? [`${e.event.type} ${"path" in e.event ? e.event.path : ""}`] : []));
    expect(applied.sort()).toEqual(Array.from({ length: 300 }, (_, i) => `created team/many/f${i}.md`).sort());
    // Its own writes are not uploads: the one upload is after.md's.
    expect(wb.events.filter((e) => e.type === "synced" || e.type === "warning" || e.type === "disconnected")).toEqual([{ type: "synced", path: "team/after.md", result: "applied" }]);
    expect(byB.filter((r) => r.startsWith("POST "))).toEqual(["POST /v1/namespaces/acme-web/batch"]);
    // The changes came with the stream: no change feed page, entry or version read per file, and a few runs' probes in all.
    expect(byB.filter((r) => !r.startsWith("GET /v1/server") && !r.startsWith("GET /v1/team/scan-policy") && !r.startsWith("POST "))).toEqual([]);
    expect(byB.length).toBeLessThanOrEqual(12);
  });

  it("sends only the final content of a file saved by truncating then writing, even with a pause between, and still sends a file emptied on purpose (try17 L10)", async () => {
    const { a, envA, server } = await setup("postgres");
    const w = await watch(a, envA.TEAMMEM_TOKEN!, { emptySettleMs: 1500 });
    await w.live();
    const file = join(a, "team", "notes.md");
    const versions = async () => {
      const history = await (await fetch(`${server.url}/v1/namespaces/acme-web/history?path=notes.md`, { headers: { authorization: `Bearer ${envA.TEAMMEM_TOKEN}` } })).json();
      return ((history as { versions?: { size: number }[] }).versions ?? []).map((v) => v.size).reverse(); // none yet: 404
    };
    await writeFile(file, "first\n");
    await until("the first version", async () => (await versions()).length === 1);
    // `: > f; sleep; cat x > f`: the empty file lies there longer than the quiet time (100 ms).
    for (const [i, pauseMs] of [0, 300, 800].entries()) {
      await writeFile(file, "");
      await new Promise((r) => setTimeout(r, pauseMs));
      await writeFile(file, `rewritten ${i}\n`);
      await until(`rewrite ${i} sent`, async () => (await versions()).length === i + 2);
    }
    // A later file's sync means every event of notes.md was handled: nothing empty was sent.
    await writeFile(join(a, "team", "after.md"), "after\n");
    await w.synced("team/after.md");
    await new Promise((r) => setTimeout(r, 1600)); // past the settle time
    expect(await versions()).toEqual([6, 12, 12, 12]);
    // Emptied on purpose: sent once it stayed empty for the settle time.
    await writeFile(file, "");
    await until("the empty version", async () => (await versions()).length === 5);
    expect(await versions()).toEqual([6, 12, 12, 12, 0]);
  });
});
