/**
 * What `status` and `sync` do against a server that accepts TCP connections and never answers (a
 * "silent" server, try18 F6, F13), and how a 404 is worded (F13): real sockets, a real server.
 *
 * - `status` makes one request on one connection (the docs: one short request, 2 s, no retry);
 *   Node's fetch used to open a second connection for the aborted request (nodejs/undici#5845).
 *   A reply that starts and then trickles is cut off at 5 s (try20 F4: 121 s, the general deadline).
 * - `sync` makes one request, gives up after the first-answer deadline (10 s, inside the agents'
 *   30 s hook timeout; it waited 30 s), says the server is not answering, keeps the edit queued and
 *   never prints "pulled 0 change(s)" for a pull that did not happen.
 * - A 404 for the same cause (a server URL with a wrong path; a namespace a reader may not create)
 *   is one message in `init` and `sync`.
 */
import { createServer as createHttpServer } from "node:http";
import { createServer, type Socket } from "node:net";
import { readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it, onTestFinished } from "vitest";
import { teammem, tempDir } from "../support/cli.js";
import { startTestServer } from "../support/server.js";

/** A TCP server on 127.0.0.1 that accepts connections and never answers: its accepted connections, and the request line of each request. */
async function silentServer(): Promise<{ url: string; connections: () => number; requests: () => string[] }> {
  const sockets: Socket[] = [];
  const requests: string[] = [];
  const server = createServer((socket) => {
    sockets.push(socket);
    socket.on("error", () => undefined);
    socket.once("data", (head) => void requests.push(head.toString("latin1").split("\r\n")[0]!));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  onTestFinished(() => {
    for (const s of sockets) s.destroy();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, connections: () => sockets.length, requests: () => [...requests] };
}

/** A memory folder set up offline for `server` with a token. */
async function folderFor(server: string): Promise<string> {
  const dir = await tempDir();
  onTestFinished(dir.remove);
  const init = await teammem(["init", "--dir", dir.path, "--server", server, "--namespace", "acme", "--offline", "--token", ["some", "token"].join("-")]);
  expect(init.code).toBe(0);
  return dir.path;
}

/** Time for a connection opened right after a command gave up (the undici reconnect) to be accepted, ms. */
const SETTLE_MS = 500;

describe("against a server that accepts connections and never answers", () => {
  it("status asks once, on one connection, and says the server is not answering", async () => {
    const silent = await silentServer();
    const dir = await folderFor(silent.url);
    const status = await teammem(["status", "--dir", dir]);
    await sleep(SETTLE_MS);
    expect(silent.requests()).toEqual(["GET /v1/namespaces/acme/changes?since=0&limit=20 HTTP/1.1"]);
    expect(silent.connections()).toBe(1);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain("server not reached: not answering (no answer within 2000 ms); never synced: nothing pending here\n");
  }, 60_000);

  it("status stops reading a reply that trickles after its headers at 5 s and says so", async () => {
    const trickling = createHttpServer((req, res) => {
      req.resume();
      res.writeHead(200, { "content-type": "application/json" });
      const timer = setInterval(() => res.write(" "), 500);
      res.on("close", () => clearInterval(timer));
    });
    await new Promise<void>((resolve) => trickling.listen(0, "127.0.0.1", resolve));
    onTestFinished(() => new Promise<void>((resolve) => (trickling.closeAllConnections(), trickling.close(() => resolve()))));
    const dir = await folderFor(`http://127.0.0.1:${(trickling.address() as { port: number }).port}`);
    const started = Date.now();
    const status = await teammem(["status", "--dir", dir]);
    expect(Date.now() - started).toBeLessThan(60_000); // 5 s; before: 120 s
    expect(status.code).toBe(0);
    expect(status.stdout).toContain("server not reached: the reply to GET changes was not complete within 5000 ms; stopped reading; never synced");
  }, 90_000);

  it("sync sends one request on one connection, gives up at the first-answer deadline, keeps the edit queued and claims no pull", async () => {
    const silent = await silentServer();
    const dir = await folderFor(silent.url);
    await writeFile(join(dir, "team", "a.md"), "an edit\n");
    const sync = await teammem(["sync", "--dir", dir]);
    await sleep(SETTLE_MS);
    expect(silent.requests()).toEqual(["GET /v1/server HTTP/1.1"]);
    expect(silent.connections()).toBe(1);
    expect(sync.code).toBe(1);
    expect(sync.stderr).toBe(
      `teammem: cannot reach server ${silent.url}: not answering (no answer within 10000 ms); 1 change is queued in the outbox and will be sent by the next sync [network_error]\n`,
    );
    expect(sync.stdout).toBe("not synced: the server was not reached; nothing was pulled or pushed, 1 change(s) stay queued in the outbox\npending in outbox: 1; cursor 0\n");
    expect((await readdir(join(dir, ".teammem", "outbox"))).filter((f) => f.endsWith(".json"))).toHaveLength(1);

    const json = await teammem(["sync", "--dir", dir, "--json"]);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, reached: false, pending: 1, error: { code: "network_error" } });
  }, 90_000);
});

describe("a 404 is worded alike by init and sync", () => {
  it("a server URL with a wrong path, and a namespace a reader may not create", async () => {
    const server = await startTestServer("postgres");
    onTestFinished(() => server.dispose());
    const member = { TEAMMEM_TOKEN: await server.token("alice") };
    const reader = { TEAMMEM_TOKEN: await server.token("rita", "default", "reader") };
    const cases = [
      {
        env: member,
        url: `${server.url}/wrong`,
        words: `server ${server.url}/wrong has no teammem API at this URL (404 not_found: no route at this path); the server URL is its base URL, e.g. http://127.0.0.1:8080`,
      },
      {
        env: reader,
        url: server.url,
        words: `namespace acme does not exist on ${server.url} and this token may not create it (read-only); ask a member to create it (teammem init or sync with a member token)`,
      },
    ];
    for (const { env, url, words } of cases) {
      const dir = await tempDir();
      onTestFinished(dir.remove);
      const init = await teammem(["init", "--dir", join(dir.path, "a"), "--server", url, "--namespace", "acme"], env);
      expect([init.code, init.stderr]).toEqual([1, `teammem: ${words}; nothing was set up [not_found]\n`]);
      expect(await teammem(["init", "--dir", join(dir.path, "b"), "--server", url, "--namespace", "acme", "--offline"], env)).toMatchObject({ code: 0 });
      const sync = await teammem(["sync", "--dir", join(dir.path, "b")], env);
      expect([sync.code, sync.stderr]).toEqual([1, `teammem: ${words} [not_found]\n`]);
    }
  }, 90_000);
});
