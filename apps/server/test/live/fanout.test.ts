/**
 * Fan-out across instances (issue 9): two servers on one PostgreSQL database, each with its own
 * LISTEN connection. A write through one reaches subscribers of the other; a PostgreSQL restart in
 * the middle of a stream of writes (a throwaway cluster, never the shared one) loses and repeats
 * nothing for any subscriber. A write whose NOTIFY was never sent (notifications leave after the
 * commit: store/change-notifier.ts) still reaches every subscriber (live/README.md).
 */
import { createHash, randomUUID } from "node:crypto";
import type { FastifyInstance } from "fastify";
import pg from "pg";
import { describe, expect, inject, it, onTestFinished } from "vitest";
import { issueToken } from "../../src/admin/tokens.js";
import { buildApp } from "../../src/app.js";
import type { LiveOptions } from "../../src/live/change-hub.js";
import { openDatabase } from "../../src/db/database.js";
import { createPostgresDatabase } from "../../src/testing.js";
import { bearer } from "../platform/support.js";
import { isType, openStream, type StreamClient } from "./stream-client.js";
import { postgresBinDir, startThrowawayCluster } from "./throwaway-cluster.js";

const SECRET = "fanout-test-secret-".padEnd(40, "x");

interface Instances {
  apps: FastifyInstance[];
  urls: string[];
  token: string;
}

/** `count` servers on one fresh database of the PostgreSQL server at `serverUrl`, listening on their own ports. */
async function startInstances(serverUrl: string, count: number, live: Partial<LiveOptions> = {}): Promise<Instances & { databaseUrl: string }> {
  const { url, drop } = await createPostgresDatabase(serverUrl);
  onTestFinished(() => drop());
  const apps: FastifyInstance[] = [];
  const urls: string[] = [];
  for (let i = 0; i < count; i++) {
    const database = await openDatabase({ kind: "postgres", url, poolSize: 4 });
    onTestFinished(() => database.close());
    if (i === 0) await database.migrate();
    const app = await buildApp({ db: database.db, jwtSecret: SECRET, limits: { rateLimitMax: 0 }, live: { heartbeatMs: 1000, probeMs: 500, ...live } });
    onTestFinished(() => app.close());
    apps.push(app);
    urls.push(await app.listen({ host: "127.0.0.1", port: 0 }));
  }
  const { token } = await issueToken(apps[0]!.db, SECRET, { teamName: "acme", userName: "ann", role: "member" });
  const res = await apps[0]!.inject({ method: "PUT", url: "/v1/namespaces/acme%2Fweb", headers: bearer(token) });
  expect(res.statusCode).toBe(201);
  return { apps, urls, token, databaseUrl: url };
}

/** A change-stream client of `url` subscribed to acme/web from cursor 0 and caught up; terminated when the test ends. */
async function subscribedStream(url: string, token: string): Promise<StreamClient> {
  const client = openStream(url, "acme/web", { token });
  onTestFinished(() => client.ws.terminate());
  client.subscribe(0);
  await client.waitFor(isType("caught_up"));
  return client;
}

/** Writes `path` through `app`, resending the same operation until the server answers 200 (it is idempotent by opId). */
async function writeUntilStored(app: FastifyInstance, token: string, path: string): Promise<void> {
  const operations = [{ opId: randomUUID(), path, baseVersion: 0, content: `${path}\n` }];
  for (;;) {
    const res = await app.inject({ method: "POST", url: "/v1/namespaces/acme%2Fweb/batch", headers: bearer(token), payload: { operations } }).catch(() => null);
    if (res?.statusCode === 200 && res.json().results[0].status === "applied") return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * `/readyz`'s LISTEN check of `app` once it reads "ok", polling for up to `withinMs`; the last
 * answer otherwise. A probe that misses its deadline on a loaded machine drops the connection and
 * reconnects, so a single reading can catch it between the two: what must hold is that it comes back.
 */
async function listenCheck(app: FastifyInstance, withinMs = 20_000): Promise<string> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const listen = (await app.inject({ url: "/readyz" })).json().checks.listen as string;
    if (listen === "ok" || Date.now() > deadline) return listen;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Commits an edit of `path` from version `base` straight in the database through the function a
 * server's fast-forward calls (migration 0012), and never notifies it: the write of an instance
 * that ended between its commit and its NOTIFY. @returns the cursor it took.
 */
async function commitWithoutNotify(databaseUrl: string, path: string, base: number, content: string): Promise<number> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const ns = (await db.query("SELECT id FROM namespaces WHERE name = 'acme/web'")).rows[0] as { id: string };
    const author = (await db.query("SELECT id, name FROM principals WHERE name = 'ann'")).rows[0] as { id: string; name: string };
    const op = randomUUID();
    const sha256 = createHash("sha256").update(content).digest("hex");
    const result = { opId: op, path, status: "applied", version: base + 1, sha256, deleted: false };
    const { rows } = await db.query(
      "SELECT written_cursor FROM teammem_fast_forward($1::uuid, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10::uuid, $11, NULL)",
      [ns.id, op, path, base, content, sha256, Buffer.byteLength(content), sha256, JSON.stringify(result), author.id, author.name],
    );
    const cursor = (rows[0] as { written_cursor: string | null }).written_cursor;
    expect(cursor).not.toBeNull();
    return Number(cursor);
  } finally {
    await db.end();
  }
}

describe("fan-out across instances", () => {
  it("delivers a write through instance 1 to a subscriber on instance 2", async () => {
    const { apps, urls, token } = await startInstances(inject("postgresUrl"), 2);
    const client = await subscribedStream(urls[1]!, token);
    await writeUntilStored(apps[0]!, token, "team/from-one.md");
    await client.until(() => client.cursors().length === 1);
    const change = client.messages.find(isType("change"))!;
    expect([change.change.path, change.change.content, change.change.cursor]).toEqual(["team/from-one.md", "team/from-one.md\n", 1]);
    for (const app of apps) {
      expect(await listenCheck(app)).toBe("ok");
      expect((await app.inject({ url: "/readyz" })).statusCode).toBe(200);
    }
  });

  // Needs megabytes of changes to fill the kernel's socket buffers before ws buffers anything: on
  // PostgreSQL only (the limit is the socket's, whatever the database).
  it("closes a consumer that stops reading with 4001 slow_consumer instead of buffering past the limit", async () => {
    const { apps, urls, token } = await startInstances(inject("postgresUrl"), 1, { maxBufferedBytes: 64 * 1024, heartbeatMs: 60_000 }); // no ping: a paused peer would not pong
    const slow = openStream(urls[0]!, "acme/web", { token });
    const fast = openStream(urls[0]!, "acme/web", { token });
    for (const c of [slow, fast]) onTestFinished(() => c.ws.terminate());
    for (const c of [slow, fast]) c.subscribe(0);
    await Promise.all([slow, fast].map((c) => c.waitFor(isType("caught_up"))));
    slow.ws.pause();
    const body = "memory line\n".repeat(5000); // 60,000 bytes, sent inline
    let written = 0;
    while (apps[0]!.changeHub.connectionCount > 1 && written < 1000) {
      const operations = Array.from({ length: 20 }, () => ({ opId: randomUUID(), path: `team/big-${written++}.md`, baseVersion: 0, content: body }));
      const res = await apps[0]!.inject({ method: "POST", url: "/v1/namespaces/acme%2Fweb/batch", headers: bearer(token), payload: { operations } });
      expect(res.statusCode).toBe(200);
    }
    slow.ws.resume();
    expect(await slow.closed).toEqual({ code: 4001, reason: "slow_consumer" });
    // The reader that kept up got everything, and the slow one can resume from its last cursor.
    await fast.until(() => fast.cursors().length === written);
    const resumed = openStream(urls[0]!, "acme/web", { token });
    onTestFinished(() => resumed.ws.terminate());
    const last = slow.cursors().at(-1) ?? 0;
    resumed.subscribe(last, (await apps[0]!.inject({ url: "/v1/server", headers: bearer(token) })).json().server);
    await resumed.waitFor(isType("caught_up"));
    expect([...slow.cursors(), ...resumed.cursors()]).toEqual(Array.from({ length: written }, (_, i) => i + 1));
  });

  it("catches subscribers up from the feed when the LISTEN connection drops while changes commit", async () => {
    // Reconnects wait a full second, so the write below commits while nobody listens.
    const { apps, urls, token, databaseUrl } = await startInstances(inject("postgresUrl"), 1, { minBackoffMs: 1000, maxBackoffMs: 1000 });
    const client = await subscribedStream(urls[0]!, token);
    const admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
    onTestFinished(() => admin.end());
    const { rows } = await admin.query(
      "SELECT pg_terminate_backend(pid) AS done FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'teammem-listen'",
    );
    expect(rows).toEqual([{ done: true }]);
    await writeUntilStored(apps[0]!, token, "team/while-away.md");
    await client.until(() => client.cursors().length === 1);
    expect(client.messages.find(isType("change"))!.change.path).toBe("team/while-away.md");
    expect({ listen: await listenCheck(apps[0]!), reconnected: apps[0]!.changeHub.listener.status().reconnects >= 1 }).toEqual({ listen: "ok", reconnected: true });
  });

  it("delivers a change whose NOTIFY was never sent, by the periodic cursor read, in order and once", async () => {
    const { apps, urls, token, databaseUrl } = await startInstances(inject("postgresUrl"), 1, { catchUpMs: 300 });
    const client = await subscribedStream(urls[0]!, token);
    await writeUntilStored(apps[0]!, token, "team/lost.md");
    await client.until(() => client.cursors().length === 1);
    // No notification will ever say cursor 2 exists, and nothing else is written.
    expect(await commitWithoutNotify(databaseUrl, "team/lost.md", 1, "committed, never notified\n")).toBe(2);
    await client.until(() => client.cursors().length === 2);
    const change = client.messages.filter(isType("change")).at(-1)!;
    expect([change.change.path, change.change.version, change.change.content]).toEqual(["team/lost.md", 2, "committed, never notified\n"]);
    expect(client.cursors()).toEqual([1, 2]);
  });

  it("delivers a change whose NOTIFY was never sent with the next notified change of its namespace", async () => {
    // The periodic read is an hour away: only the next notification can bring the lost change.
    const { apps, urls, token, databaseUrl } = await startInstances(inject("postgresUrl"), 2, { catchUpMs: 3_600_000 });
    const client = await subscribedStream(urls[1]!, token);
    await writeUntilStored(apps[0]!, token, "team/lost.md");
    await client.until(() => client.cursors().length === 1);
    expect(await commitWithoutNotify(databaseUrl, "team/lost.md", 1, "committed, never notified\n")).toBe(2);
    await writeUntilStored(apps[0]!, token, "team/next.md");
    await client.until(() => client.cursors().length === 3);
    expect(client.messages.filter(isType("change")).map((m) => [m.change.path, m.change.cursor])).toEqual([
      ["team/lost.md", 1],
      ["team/lost.md", 2],
      ["team/next.md", 3],
    ]);
  });

  it.skipIf(!postgresBinDir())(
    "gives every subscriber every change exactly once when PostgreSQL restarts in the middle of a stream of writes",
    async () => {
      const cluster = await startThrowawayCluster();
      onTestFinished(() => cluster.destroy());
      const { apps, urls, token } = await startInstances(cluster.url, 2);
      const clients = [0, 1, 0, 1].map((i) => openStream(urls[i]!, "acme/web", { token }));
      for (const c of clients) onTestFinished(() => c.ws.terminate());
      for (const c of clients) c.subscribe(0);
      await Promise.all(clients.map((c) => c.waitFor(isType("caught_up"))));

      const total = 40;
      let restarted: Promise<void> | null = null;
      for (let i = 0; i < total; i++) {
        // alternate the instance written through; restart PostgreSQL once, halfway, without waiting
        await writeUntilStored(apps[i % 2]!, token, `team/w-${String(i).padStart(3, "0")}.md`);
        if (i === total / 2) restarted = cluster.restart();
      }
      await restarted;
      const expected = Array.from({ length: total }, (_, i) => i + 1);
      await Promise.all(clients.map((c) => c.until(() => c.cursors().length >= total)));
      for (const c of clients) expect(c.cursors()).toEqual(expected);
      for (const c of clients) expect(c.ws.readyState).toBe(c.ws.OPEN);
      // Both LISTEN connections came back after the restart.
      for (const app of apps) {
        expect({ listen: await listenCheck(app), reconnected: app.changeHub.listener.status().reconnects >= 1 }).toEqual({ listen: "ok", reconnected: true });
      }
    },
  );
});
