/**
 * `teammem watch` stopped (SIGTERM, SIGINT) while a request of its sync hangs on a server that
 * does not finish its reply (try20 F3): the built binary as a real process against real sockets.
 * The README (*teammem watch*, Stop) promises: pending changes pushed for at most 10 s, the stream
 * closed, the lock released, exit 0. The watch used to print `stopped` at 10 s and stay alive
 * until its request ended (a body trickling in: the 120 s reply deadline), holding its
 * connection and `.teammem/command.lock`. Also `teammem sync` on a signal while its request hangs:
 * it ends by the signal at once and its command lock is removed.
 * The bounds are generous (20 s for a stop whose flush may take 10 s); the bug they guard took minutes.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { createServer as createHttpServer } from "node:http";
import { createServer as createTcpServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it, onTestFinished } from "vitest";
import { CLIENT_CLI as CLI } from "../../scripts/lib/processes.mjs";
import { teammem, tempDir } from "../support/cli.js";
import { poller } from "../support/until.js";

const until = poller({ timeoutMs: 30_000, everyMs: 100 });

/** Longest time from the signal to the process's exit accepted, ms: the 10 s stop flush plus slack for a loaded machine. */
const EXIT_BOUND_MS = 20_000;

type Behaviour = "body trickles" | "headers never come";

/**
 * A server on 127.0.0.1 that never finishes a reply: `body trickles` answers 200 with its headers
 * (a 100 000-byte JSON body announced), then one body byte a second; `headers never come` accepts
 * connections and never answers. Counts the requests it received and the connections still open.
 */
async function hangingServer(behaviour: Behaviour): Promise<{ url: string; requests: () => number; open: () => number }> {
  const sockets = new Set<Socket>();
  let requests = 0;
  let server: Server;
  if (behaviour === "body trickles") {
    server = createHttpServer((request, response) => {
      requests++;
      response.writeHead(200, { "content-type": "application/json", "content-length": "100000" });
      response.write('{"a":"');
      const drip = setInterval(() => (response.destroyed ? clearInterval(drip) : response.write("x")), 1000);
      response.on("close", () => clearInterval(drip));
    });
  } else {
    server = createTcpServer((socket) => void socket.once("data", () => requests++));
  }
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("error", () => undefined);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  onTestFinished(() => {
    for (const s of sockets) s.destroy();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, requests: () => requests, open: () => sockets.size };
}

/** A memory folder set up offline for `server`, with one team file written (a change to push). */
async function folderFor(server: string): Promise<string> {
  const root = await tempDir();
  onTestFinished(root.remove);
  const dir = join(root.path, "m");
  const init = await teammem(["init", "--dir", dir, "--server", server, "--namespace", "acme", "--offline", "--token", ["some", "token"].join("-")]);
  expect(init.code).toBe(0);
  await writeFile(join(dir, "team", "a.md"), "an edit to push\n");
  return dir;
}

/**
 * Queues `dir`'s change in its outbox without reaching any server: a sync against a port nothing
 * listens on queues it and stops (exit 1); the folder is then pointed back at `server`.
 */
async function queueOffline(dir: string, server: string): Promise<void> {
  const closed = createTcpServer();
  await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
  const { port } = closed.address() as { port: number };
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const configPath = join(dir, ".teammem", "config.json");
  const config = JSON.parse(await readFile(configPath, "utf8")) as { server: string };
  await writeFile(configPath, JSON.stringify({ ...config, server: `http://127.0.0.1:${port}` }));
  const sync = await teammem(["sync", "--dir", dir]);
  expect({ code: sync.code, queued: (await readdir(join(dir, ".teammem", "outbox"))).length }).toEqual({ code: 1, queued: 1 });
  await writeFile(configPath, JSON.stringify({ ...config, server }));
}

/** `teammem ...args` as a child process: its exit (code or signal, and when), its output. */
function cliProcess(args: string[]) {
  const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, TEAMMEM_TOKEN: "" }, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (b) => (stdout += b));
  child.stderr.on("data", (b) => (stderr += b));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal, at: performance.now() })),
  );
  onTestFinished(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await exited;
  });
  return { child, exited, stdout: () => stdout, stderr: () => stderr };
}

/** Waits for `exited` at most `ms`: its outcome, or "still running". */
async function exitWithin<T>(exited: Promise<T>, ms: number): Promise<T | "still running"> {
  return Promise.race([exited, sleep(ms, "still running" as const)]);
}

/** The lock and pid files left in `dir`'s state folder. */
async function leftLocks(dir: string): Promise<string[]> {
  return (await readdir(join(dir, ".teammem"))).filter((f) => f.includes("lock") || f.endsWith(".pid")).sort();
}

describe("a command stopped while its request hangs", () => {
  it.each([
    ["SIGTERM", "body trickles"],
    ["SIGINT", "body trickles"],
    ["SIGTERM", "headers never come"],
  ] as const)("teammem watch on %s while the server's %s: stops within the bound, exit 0, no lock or pid left, the change queued", async (signal, behaviour) => {
    expect(existsSync(CLI), `${CLI} is missing: run \`npx tsc -b\` first`).toBe(true);
    const server = await hangingServer(behaviour);
    const dir = await folderFor(server.url);
    const watch = cliProcess(["watch", "--json", "--dir", dir]);
    await until("the watch's first request to reach the server", () => server.requests() > 0 && watch.stdout().includes('"type":"started"'));
    await sleep(1500); // a few body bytes in (or the headers waited for)
    const signalled = performance.now();
    watch.child.kill(signal);
    const end = await exitWithin(watch.exited, 60_000);
    expect(end, watch.stdout() + watch.stderr()).not.toBe("still running");
    if (end === "still running") return;
    // Ctrl-C is a person at a terminal: they are told what the wait is and how to skip it.
    const hint = signal === "SIGINT" ? "teammem: stopping: sending pending changes (at most 10 s); Ctrl-C again to stop without sending\n" : "";
    expect({ code: end.code, signal: end.signal, stderr: watch.stderr() }).toEqual({ code: 0, signal: null, stderr: hint });
    expect(end.at - signalled).toBeLessThan(EXIT_BOUND_MS);
    const events = watch
      .stdout()
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l) as { type: string });
    expect(events.at(-1)).toMatchObject({ type: "stopped", exitCode: 0, pending: 1 });
    expect(await leftLocks(dir)).toEqual([]);
    await until("the server to see the connection closed", () => server.open() === 0, 5_000);
  }, 90_000);

  it("teammem watch on a second signal during the stop's push: stops without waiting for it, exit 0, the change queued, no lock left", async () => {
    expect(existsSync(CLI), `${CLI} is missing: run \`npx tsc -b\` first`).toBe(true);
    const server = await hangingServer("body trickles");
    const dir = await folderFor(server.url);
    const watch = cliProcess(["watch", "--json", "--dir", dir]);
    await until("the watch's first request to reach the server", () => server.requests() > 0 && watch.stdout().includes('"type":"started"'));
    watch.child.kill("SIGTERM"); // the stop pushes what is pending for up to 10 s: the server never answers
    await sleep(1000);
    const second = performance.now();
    watch.child.kill("SIGINT");
    const end = await exitWithin(watch.exited, 30_000);
    expect(end, watch.stdout() + watch.stderr()).not.toBe("still running");
    if (end === "still running") return;
    expect({ code: end.code, signal: end.signal }).toEqual({ code: 0, signal: null });
    expect(watch.stderr()).toBe("teammem: stopping without sending: pending changes stay queued for the next sync\n");
    // Before: the stop waited out its 10 s push, 9 s after the second signal.
    expect(end.at - second).toBeLessThan(6_000);
    const last = JSON.parse(watch.stdout().trim().split("\n").at(-1)!) as object;
    expect(last).toMatchObject({ type: "stopped", exitCode: 0, pending: 1, message: "stopped at once: pending changes not sent" });
    expect(await leftLocks(dir)).toEqual([]);
  }, 60_000);

  // try21 F6: the signal still ends the command by itself, at once, and one line says what stays queued (before: nothing at all).
  it.each([
    ["sync", "SIGTERM", 0, "teammem: interrupted (SIGTERM): nothing stays queued; the next sync finds your local changes again\n"],
    ["sync", "SIGINT", 1, "teammem: interrupted (SIGINT): 1 change(s) stay queued; the next sync sends them\n"],
    ["push", "SIGTERM", 1, "teammem: interrupted (SIGTERM): 1 change(s) stay queued; the next sync or push sends them\n"],
  ] as const)("teammem %s on %s while the server's body trickles (%i change queued before): ends by the signal at once, says what stays queued, its command lock removed", async (command, signal, queuedBefore, said) => {
    expect(existsSync(CLI), `${CLI} is missing: run \`npx tsc -b\` first`).toBe(true);
    const server = await hangingServer("body trickles");
    const dir = await folderFor(server.url);
    if (queuedBefore) await queueOffline(dir, server.url);
    const sync = cliProcess(command === "sync" ? ["sync", "--dir", dir] : ["push", "team/a.md", "--dir", dir]);
    await until("the command's request to reach the server", () => server.requests() > 0);
    await until("the command to hold the command lock", async () => (await leftLocks(dir)).includes("command.lock"));
    const signalled = performance.now();
    sync.child.kill(signal);
    const end = await exitWithin(sync.exited, 30_000);
    expect(end).toMatchObject({ code: null, signal }); // a shell reports 130 (SIGINT) or 143 (SIGTERM); a script running it stops too
    if (end === "still running") return;
    expect(end.at - signalled).toBeLessThan(5_000);
    expect({ stdout: sync.stdout(), stderr: sync.stderr() }).toEqual({ stdout: "", stderr: said });
    expect(await leftLocks(dir)).toEqual([]);
    expect(await readFile(join(dir, "team", "a.md"), "utf8")).toBe("an edit to push\n"); // found again by the next sync
    expect((await readdir(join(dir, ".teammem", "outbox")).catch(() => [])).length).toBe(queuedBefore);
  }, 60_000);
});
