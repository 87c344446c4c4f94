/**
 * The change stream (issue 9, "Server stream") on a listening server with real sockets, on both
 * database kinds: refusals before the upgrade, catch-up then live in cursor order, the close codes.
 */
import { randomUUID } from "node:crypto";
import type { ServerRef } from "@teammem/protocol";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { WebSocket } from "ws";
import type { AppOptions } from "../../src/app.js";
import type { LiveOptions } from "../../src/live/change-hub.js";
import { startNewEpoch } from "../../src/identity/server-identity.js";
import { DATABASE_KINDS } from "../../src/testing.js";
import { badTokens, bearer, startTestServer, type TestServer } from "../platform/support.js";
import { isType, openStream, type OpenOptions } from "./stream-client.js";

interface Live {
  server: TestServer;
  url: string;
  token: string;
  /** A fresh namespace of team acme (`acme/t<n>`). */
  namespace(): Promise<string>;
  write(namespace: string, paths: string[], content?: (path: string) => string): Promise<void>;
  open(namespace: string, opts?: OpenOptions): ReturnType<typeof openStream>;
  serverRef(): Promise<ServerRef>;
  close(): Promise<void>;
}

/** Stream options of the shared server: short timers and small limits, so each behaviour shows quickly. */
const LIVE: Partial<LiveOptions> = {
  allowedOrigins: ["https://console.example.com"],
  maxInlineBytes: 64,
  maxMessageBytes: 1024,
  subscribeTimeoutMs: 1000,
  heartbeatMs: 500,
  tokenCheckMs: 100,
};

async function startLive(kind: (typeof DATABASE_KINDS)[number], opts: Partial<AppOptions> = {}, logLines: string[] = []): Promise<Live> {
  const logger = { level: "debug", stream: { write: (line: string) => void logLines.push(line) } };
  const server = await startTestServer(kind, { limits: { rateLimitMax: 0 }, live: LIVE, logger, identityCacheMs: 100, ...opts });
  const url = await server.app.listen({ host: "127.0.0.1", port: 0 });
  const { token } = await server.token("acme", "ann", "member");
  let namespaces = 0;
  let closing: Promise<void> | null = null;
  return {
    server,
    url,
    token,
    namespace: async () => {
      const name = `acme/t${++namespaces}`;
      const res = await server.app.inject({ method: "PUT", url: `/v1/namespaces/${encodeURIComponent(name)}`, headers: bearer(token) });
      expect(res.statusCode).toBe(201);
      return name;
    },
    write: async (namespace, paths, content = (p) => `${p}\n`) => {
      for (let i = 0; i < paths.length; i += 100) {
        const operations = paths.slice(i, i + 100).map((path) => ({ opId: randomUUID(), path, baseVersion: 0, content: content(path) }));
        const res = await server.app.inject({ method: "POST", url: `/v1/namespaces/${encodeURIComponent(namespace)}/batch`, headers: bearer(token), payload: { operations } });
        expect(res.statusCode, res.body).toBe(200);
      }
    },
    open: (namespace, o = {}) => {
      const client = openStream(url, namespace, { token, ...o });
      onTestFinished(() => client.ws.terminate());
      return client;
    },
    serverRef: async () => (await server.app.inject({ url: "/v1/server", headers: bearer(token) })).json().server,
    close: () => (closing ??= server.close()),
  };
}

const paths = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `team/${prefix}-${String(i).padStart(4, "0")}.md`);

describe.each(DATABASE_KINDS)("change stream on %s", (kind) => {
  let live: Live;
  /** Every line the shared server logged (at debug level). */
  const logLines: string[] = [];
  beforeAll(async () => {
    live = await startLive(kind, {}, logLines);
  });
  afterAll(() => live?.close());

  it("refuses every kind of bad token, another team's namespace and a foreign Origin with an HTTP status before 101", async () => {
    const ns = await live.namespace();
    const other = await live.server.token("other", "olga", "member");
    await live.server.app.inject({ method: "PUT", url: "/v1/namespaces/theirs", headers: bearer(other.token) });
    const revoked = (await badTokens(live.server, "acme")).find((b) => b.name === "revoked token")!.headers.authorization!.slice("Bearer ".length);
    const cases: { name: string; namespace?: string; opts: OpenOptions; status: number; code: string }[] = [
      ...(await badTokens(live.server, "acme")).map((b) => ({ name: b.name, opts: { token: undefined, headers: b.headers }, status: 401, code: b.code })),
      { name: "a revoked token in the subprotocol", opts: { token: revoked, tokenIn: "subprotocol" }, status: 401, code: "token_revoked" },
      { name: "another team's namespace", namespace: "theirs", opts: {}, status: 404, code: "not_found" },
      { name: "a missing namespace", namespace: "nope", opts: {}, status: 404, code: "not_found" },
      { name: "a bad namespace name", namespace: "a//b", opts: {}, status: 400, code: "invalid_request" },
      { name: "a foreign Origin", opts: { headers: { origin: "https://evil.example" } }, status: 403, code: "forbidden" },
    ];
    for (const c of cases) {
      const client = live.open(c.namespace ?? ns, c.opts);
      const { status, body } = await client.refused;
      expect({ name: c.name, status, code: JSON.parse(body).code }).toEqual({ name: c.name, status: c.status, code: c.code });
      expect(client.messages).toEqual([]);
      expect(client.ws.readyState).not.toBe(client.ws.OPEN);
    }
    // A token in the URL is never read.
    const raw = new WebSocket(`${live.url.replace(/^http/, "ws")}/v1/namespaces/${encodeURIComponent(ns)}/stream?token=${live.token}&access_token=${live.token}`, ["teammem.stream.v1"]);
    raw.on("error", () => undefined);
    const status = await new Promise<number>((resolve) => raw.on("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0)));
    raw.terminate();
    expect(status).toBe(401);
    // The allowed Origin, and none at all (a CLI), are let in.
    for (const headers of [{ origin: "https://console.example.com" }, {}] as Record<string, string>[]) {
      const ok = live.open(ns, { headers });
      await ok.opened;
      ok.ws.close();
    }
  });

  it("answers a plain GET of the stream route with 426 upgrade_required and Upgrade: websocket, after the token check", async () => {
    const ns = await live.namespace();
    const url = `${live.url}/v1/namespaces/${encodeURIComponent(ns)}/stream`;
    const res = await fetch(url, { headers: bearer(live.token) });
    expect({ status: res.status, upgrade: res.headers.get("upgrade"), code: ((await res.json()) as { code: string }).code }).toEqual({
      status: 426,
      upgrade: "websocket",
      code: "upgrade_required",
    });
    expect((await fetch(url)).status).toBe(401);
  });

  it("sends the backlog after the cursor, caught_up, then live changes, each cursor once and in order", async () => {
    const ns = await live.namespace();
    await live.write(ns, paths("old", 3));
    const client = live.open(ns);
    await client.opened;
    expect(client.ws.protocol).toBe("teammem.stream.v1");
    client.subscribe(0);
    await client.waitFor(isType("caught_up"));
    await live.write(ns, paths("new", 2));
    await client.until(() => client.cursors().length === 5);
    const [subscribed, ...rest] = client.messages.filter((m) => m.type !== "heartbeat");
    expect(subscribed).toEqual({ type: "subscribed", namespace: ns, cursor: 0, headCursor: 3, server: await live.serverRef(), maxInlineBytes: 64, heartbeatMs: 500 });
    expect(rest.map((m) => (m.type === "change" ? `${m.change.cursor} ${m.change.path} ${m.change.content?.trim()}` : m.type))).toEqual([
      "1 team/old-0000.md team/old-0000.md",
      "2 team/old-0001.md team/old-0001.md",
      "3 team/old-0002.md team/old-0002.md",
      "caught_up",
      "4 team/new-0000.md team/new-0000.md",
      "5 team/new-0001.md team/new-0001.md",
    ]);
    // Resuming from a cursor sends only what came after it.
    const again = live.open(ns);
    again.subscribe(4, await live.serverRef());
    await again.waitFor(isType("caught_up"));
    expect(again.cursors()).toEqual([5]);
  });

  it("accepts the token as the teammem.bearer subprotocol", async () => {
    const ns = await live.namespace();
    const client = live.open(ns, { tokenIn: "subprotocol" });
    await client.opened;
    expect(client.ws.protocol).toBe("teammem.stream.v1");
    client.subscribe(0);
    await client.waitFor(isType("caught_up"));
  });

  it("loses and repeats nothing of the changes committed while the catch-up is being sent", async () => {
    const ns = await live.namespace();
    await live.write(ns, paths("before", 210)); // more than one catch-up page (200)
    const client = live.open(ns);
    await client.opened;
    client.subscribe(0);
    for (let i = 0; i < 8; i++) await live.write(ns, paths(`during-${i}`, 5));
    await client.until(() => client.cursors().length >= 250);
    expect(client.cursors()).toEqual(Array.from({ length: 250 }, (_, i) => i + 1));
  });

  it("sends a large entry's metadata without its content", async () => {
    const ns = await live.namespace();
    await live.write(ns, ["team/small.md", "team/large.md"], (p) => (p.includes("large") ? "x".repeat(65) : "tiny"));
    const client = live.open(ns);
    client.subscribe(0);
    await client.waitFor(isType("caught_up"));
    const changes = client.messages.filter(isType("change"));
    expect(changes.map((c) => [c.change.path, c.change.content, c.change.size, c.contentOmitted])).toEqual([
      ["team/small.md", "tiny", 4, false],
      ["team/large.md", null, 65, true],
    ]);
  });

  it("closes with 4002 stale_cursor for another epoch or a cursor above the namespace's", async () => {
    const ns = await live.namespace();
    await live.write(ns, paths("a", 2));
    const server = await live.serverRef();
    for (const [cursor, ref] of [
      [1, { ...server, epoch: randomUUID() }],
      [1, { ...server, id: randomUUID() }],
      [3, server],
    ] as const) {
      const client = live.open(ns);
      client.subscribe(cursor, ref);
      expect(await client.closed).toEqual({ code: 4002, reason: "stale_cursor" });
      expect(client.messages).toEqual([{ type: "error", code: "stale_cursor", message: expect.any(String), details: { cursor: 2, server } }]);
    }
  });

  it("closes with 4400 for a message that is not one subscribe, and 1009 for one over the size limit", async () => {
    const ns = await live.namespace();
    const bad: [string, (c: ReturnType<Live["open"]>) => void][] = [
      ["not JSON", (c) => c.ws.send("{")],
      ["an unknown type", (c) => c.ws.send(JSON.stringify({ type: "pull", cursor: 0 }))],
      ["a binary frame", (c) => c.ws.send(Buffer.from("{}"))],
      ["a cursor without a server", (c) => c.subscribe(1)],
      ["a second subscribe", (c) => (c.subscribe(0), c.subscribe(0))],
    ];
    for (const [name, send] of bad) {
      const client = live.open(ns);
      await client.opened;
      send(client);
      expect({ name, ...(await client.closed) }).toEqual({ name, code: 4400, reason: "invalid_request" });
      expect(client.messages.at(-1)).toMatchObject({ type: "error", code: "invalid_request" });
    }
    const big = live.open(ns);
    await big.opened;
    big.ws.send(JSON.stringify({ type: "subscribe", protocolVersion: 1, cursor: 0, pad: "x".repeat(2000) }));
    expect((await big.closed).code).toBe(1009);
    // The server is still fine.
    const ok = live.open(ns);
    ok.subscribe(0);
    await ok.waitFor(isType("caught_up"));
  });

  it("closes with 4003 idle_timeout when no subscribe comes in time or pings go unanswered, and sends heartbeats", async () => {
    const ns = await live.namespace();
    const silent = live.open(ns);
    expect(await silent.closed).toEqual({ code: 4003, reason: "idle_timeout" });

    const beating = live.open(ns);
    beating.subscribe(0);
    let pings = 0;
    beating.ws.on("ping", () => pings++);
    await beating.until(() => beating.messages.some(isType("heartbeat")) && pings >= 2);
    expect(beating.messages.find(isType("heartbeat"))).toEqual({ type: "heartbeat", cursor: 0 });

    const deaf = live.open(ns, { ws: { autoPong: false } });
    deaf.subscribe(0);
    expect(await deaf.closed).toEqual({ code: 4003, reason: "idle_timeout" });
  });

  it("closes a revoked token's stream with 4401 token_revoked within seconds", async () => {
    const ns = await live.namespace();
    const admin = await live.server.token("acme", "ada", "admin");
    const doomed = await live.server.token("acme", "dora", "reader");
    const client = live.open(ns, { token: doomed.token });
    client.subscribe(0);
    await client.waitFor(isType("caught_up"));
    const res = await live.server.app.inject({ method: "DELETE", url: `/v1/admin/tokens/${doomed.tokenId}`, headers: bearer(admin.token) });
    expect(res.statusCode).toBeLessThan(300);
    expect(await client.closed).toEqual({ code: 4401, reason: "token_revoked" });
    expect(client.messages.at(-1)).toMatchObject({ type: "error", code: "token_revoked" });
  });

  it("never logs a token, whether it came in the Authorization header or the subprotocol, valid or refused", async () => {
    const ns = await live.namespace();
    const reader = await live.server.token("acme", "logan", "reader");
    const viaHeader = live.open(ns, { token: reader.token });
    const viaProtocol = live.open(ns, { token: reader.token, tokenIn: "subprotocol" });
    const forged = live.open(ns, { token: `${reader.token.slice(0, -4)}AAAA`, tokenIn: "subprotocol" });
    for (const c of [viaHeader, viaProtocol]) c.subscribe(0);
    await Promise.all([viaHeader, viaProtocol].map((c) => c.waitFor(isType("caught_up"))));
    expect((await forged.refused).status).toBe(401);
    viaHeader.ws.close();
    await viaHeader.closed;
    expect(logLines.length).toBeGreaterThan(0);
    const signature = reader.token.split(".")[2]!;
    expect(logLines.filter((l) => l.includes(signature) || l.includes(live.token.split(".")[2]!))).toEqual([]);
    expect(logLines.some((l) => l.includes("/stream"))).toBe(true); // the upgrades were logged, without their tokens
  });

  it("closes an open stream with 4002 stale_cursor when the server's epoch changes", async () => {
    const ns = await live.namespace();
    const client = live.open(ns);
    client.subscribe(0);
    await client.waitFor(isType("caught_up"));
    const { server } = await startNewEpoch(live.server.tdb.database.db, "stream test");
    expect(await client.closed).toEqual({ code: 4002, reason: "stale_cursor" });
    expect(client.messages.at(-1)).toEqual({ type: "error", code: "stale_cursor", message: expect.any(String), details: { server } });
  });

  // Last: it closes the shared server.
  it("closes every stream with 1001 server_shutting_down on app.close()", async () => {
    const ns = await live.namespace();
    const clients = [live.open(ns), live.open(ns)];
    for (const c of clients) c.subscribe(0);
    await Promise.all(clients.map((c) => c.waitFor(isType("caught_up"))));
    await live.close();
    for (const c of clients) expect(await c.closed).toEqual({ code: 1001, reason: "server_shutting_down" });
  });
});
