/**
 * A run against an unreachable server gives up after its first failed request (issue 12, try16
 * F7): a sync used to wait the request deadline once per request (server info, scan policy,
 * bypasses, pull...). Real sockets on the port a real server left: a TCP server that accepts and
 * never answers (its accepted connections counted), and the port with nothing listening (the
 * client's attempts counted through `onAttempt`). Then the real server comes back on that port.
 */
import { createServer, type Socket } from "node:net";
import { readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { createApi, layoutOf, NetworkError, syncFolder } from "@teammem/client";
import { teammem } from "../support/cli.js";
import { setup, sync, type Clients } from "../support/clients.js";

/** Request deadline of the runs against the unreachable server, ms. */
const DEADLINE_MS = 300;

/**
 * A TCP server on `port` of 127.0.0.1 that accepts connections and never answers; closed after the
 * test. `requests()`: the request line of each connection a request arrived on; `connections()`
 * counts every accepted one (Node's fetch (undici) used to open one more connection after it aborted
 * a timed-out request, nodejs/undici#5845: the client now closes its pool first).
 */
async function blackhole(port: number): Promise<{ requests: () => string[]; connections: () => number; close: () => Promise<void> }> {
  const hung: Socket[] = [];
  const requests: string[] = [];
  const server = createServer((socket) => {
    hung.push(socket);
    socket.once("data", (head) => void requests.push(head.toString("latin1").split("\r\n")[0]!));
  });
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(port, "127.0.0.1", resolve));
  const close = () => {
    for (const s of hung) s.destroy();
    return new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()));
  };
  onTestFinished(close);
  return { requests: () => [...requests], connections: () => hung.length, close };
}

/** The files queued in `dir`'s outbox. */
const outbox = async (dir: string) => (await readdir(join(dir, ".teammem", "outbox"))).filter((f) => f.endsWith(".json"));

/** Batches the server received (one per request), from its request log. */
const batches = (clients: Clients) => clients.server.requests.filter((r) => r.startsWith("POST /v1/namespaces/acme-web/batch"));

/** A's synced team/build.md edited again, the server stopped: its port is free for the test's listener. */
async function editedWhileServerGone(): Promise<{ clients: Clients; port: number; token: string }> {
  const clients = await setup("postgres");
  await writeFile(join(clients.a, "team", "build.md"), "# Build\n\n- node 20\n");
  expect((await sync(clients.a, clients.envA)).code).toBe(0);
  await writeFile(join(clients.a, "team", "build.md"), "# Build\n\n- node 20\n- npm ci, not npm install\n");
  await clients.server.stop();
  return { clients, port: Number(new URL(clients.server.url).port), token: clients.envA.TEAMMEM_TOKEN! };
}

describe("a run against an unreachable server", () => {
  it("a sync against a server that accepts and never answers sends it one request, queues the edit, and the next sync sends the edit once", async () => {
    const { clients, port, token } = await editedWhileServerGone();
    const hole = await blackhole(port);
    const attempts: string[] = [];
    const warnings: string[] = [];
    const api = createApi({ server: clients.server.url, namespace: "acme-web", token, timeoutMs: DEADLINE_MS, onAttempt: (what) => attempts.push(what) });
    const summary = await syncFolder(layoutOf(clients.a), { token, api, warn: (line) => warnings.push(line) });

    // Server info and the scan policy are asked at once; the second waited for the first's outcome.
    expect(hole.requests()).toEqual(["GET /v1/server HTTP/1.1"]);
    expect(hole.connections()).toBe(1);
    expect(attempts).toEqual(["GET server"]);
    expect(summary.error).toBeInstanceOf(NetworkError);
    expect(summary.error?.message).toBe(`cannot reach server ${clients.server.url}: not answering (no answer within ${DEADLINE_MS} ms)`);
    expect(summary.reached).toBe(false);
    expect(warnings).toEqual([]);
    expect(summary.pending).toBe(1);
    expect(await outbox(clients.a)).toHaveLength(1);

    await hole.close();
    await clients.server.start();
    const before = batches(clients).length;
    const back = await teammem(["sync", "--dir", clients.a], clients.envA);
    expect([back.code, back.stderr]).toEqual([0, ""]);
    expect(batches(clients).length - before).toBe(1);
    expect(await outbox(clients.a)).toEqual([]);
    const history = await teammem(["history", "team/build.md", "--dir", clients.a, "--json"], clients.envA);
    expect(JSON.parse(history.stdout).versions.map((v: { version: number }) => v.version)).toEqual([2, 1]);
  });

  it("a push to a port nothing listens on makes one request (its own retry included) and reports once that the change is queued", async () => {
    const { clients, token } = await editedWhileServerGone();
    const attempts: string[] = [];
    const api = createApi({ server: clients.server.url, namespace: "acme-web", token, timeoutMs: DEADLINE_MS, retry: { limit: 1, maxDelayMs: 50 }, onAttempt: (what) => attempts.push(what) });
    const summary = await syncFolder(layoutOf(clients.a), { token, api, pull: false, onlyUnder: ["build.md"] });

    // Every later request (scan policy, the batch) failed at once with the first one's error.
    expect(attempts).toEqual(["GET server", "GET server"]);
    expect(summary.error).toBeInstanceOf(NetworkError);
    expect(summary.error?.message).toMatch(new RegExp(`^cannot reach server ${clients.server.url}: .*refused`));
    expect(summary.pending).toBe(1);

    // The command line says it once: the error, the change queued.
    const push = await teammem(["push", "--dir", clients.a, "team/build.md"], clients.envA);
    expect(push.code).toBe(1);
    expect(push.stderr.split("\n").filter(Boolean)).toEqual([
      expect.stringMatching(/^teammem: cannot reach server \S+: .*refused.*; 1 change\(s\) stay queued and the next sync or push sends them \[network_error\]$/),
    ]);

    await clients.server.start();
    const before = batches(clients).length;
    expect((await sync(clients.a, clients.envA)).code).toBe(0);
    expect(batches(clients).length - before).toBe(1);
    expect(await outbox(clients.a)).toEqual([]);
  });
});
