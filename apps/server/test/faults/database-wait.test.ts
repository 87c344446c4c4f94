/**
 * PostgreSQL not up yet when the server starts (issue 12: compose starting both at once, a
 * PostgreSQL restart): `teammem-server start` and `migrate` retry with capped backoff for
 * TEAMMEM_DB_CONNECT_TIMEOUT_MS, one stderr line per attempt, then serve, or exit 1 with one clear
 * message; a database that does not exist fails at once. "Late" PostgreSQL is a TCP proxy this
 * test opens on a free port after a delay, forwarding to the test server. Built CLI (`npx tsc -b`
 * first), real PostgreSQL.
 */
import { createServer, connect, type Server, type Socket } from "node:net";
import { describe, expect, inject, it, onTestFinished } from "vitest";
import { run } from "../../src/cli/run.js";
import { createPostgresDatabase } from "../../src/testing.js";
import { freePort, spawnCli } from "../support/built-cli.js";

/** Listens on 127.0.0.1:`port` and forwards every connection to `target`; closed (with its connections) after the test. */
function openProxy(port: number, target: { host: string; port: number }): Promise<Server> {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("error", () => undefined);
      s.on("close", () => {
        sockets.delete(s);
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  );
  return new Promise((resolve) => server.listen(port, "127.0.0.1", () => resolve(server)));
}

/** The code of the error binding 127.0.0.1:`port` meets (EADDRINUSE...), or null when it binds (then closed at once). */
function bindError(port: number): Promise<string | null> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once("error", (err: NodeJS.ErrnoException) => resolve(err.code ?? String(err)));
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(null)));
  });
}

/** The database URL `url` with its host and port replaced. */
function via(url: string, port: number): string {
  const u = new URL(url);
  u.hostname = "127.0.0.1";
  u.port = String(port);
  return u.toString();
}

const postgresUrl = () => inject("postgresUrl");
const NOT_REACHABLE = /^teammem-server: database not reachable \(connect ECONNREFUSED 127\.0\.0\.1:\d+\); attempt (\d+), retrying in (\d+) ms \(waited \d+ of (\d+) ms\)$/;

describe("waiting for PostgreSQL at start (issue 12)", () => {
  it("start retries while nothing listens, then serves once PostgreSQL answers (/readyz 200), one line per attempt and no stack", async () => {
    const db = await createPostgresDatabase(postgresUrl());
    onTestFinished(() => db.drop());
    const target = new URL(db.url);
    const port = await freePort();
    const server = spawnCli(["start", "--port", "0"], { DATABASE_URL: via(db.url, port), TEAMMEM_DB_CONNECT_TIMEOUT_MS: "20000" });
    // PostgreSQL "comes up" once the server has failed at least twice (the process's own start
    // takes seconds on a loaded machine, hence the generous deadline).
    await server.waitFor(/database not reachable[^]*database not reachable/);
    await openProxy(port, { host: target.hostname, port: Number(target.port || 5432) });
    const url = (await server.waitFor(/listening on (http:\/\/\S+)/))[1]!;
    expect((await fetch(`${url}/readyz`)).status).toBe(200);

    const lines = server.stderr().split("\n").filter((l) => l.startsWith("teammem-server:"));
    const retries = lines.filter((l) => NOT_REACHABLE.test(l)).map((l) => NOT_REACHABLE.exec(l)!.slice(1).map(Number));
    expect(retries.length).toBeGreaterThanOrEqual(2);
    // Attempts counted from 1, pauses 250, 500, 1000, ... capped at 2000 ms, the wait named.
    expect(retries.slice(0, 2)).toEqual([
      [1, 250, 20000],
      [2, 500, 20000],
    ]);
    expect(retries.every(([, delayMs]) => delayMs! <= 2000)).toBe(true);
    expect(lines.filter((l) => !NOT_REACHABLE.test(l))).toEqual([
      expect.stringMatching(new RegExp(`^teammem-server: the database accepted a connection \\(attempt ${retries.length + 1}, after \\d+ ms\\)$`)),
    ]);
    expect(server.stderr()).not.toMatch(/^\s+at /m);

    server.child.kill("SIGTERM");
    expect((await server.exited).code).toBe(0);
  }, 90_000);

  it("holds its port through the wait for PostgreSQL (one bind: no other process can take it) and answers a request made during the wait once it serves", async () => {
    const db = await createPostgresDatabase(postgresUrl());
    onTestFinished(() => db.drop());
    const target = new URL(db.url);
    const [pgPort, httpPort] = [await freePort(), await freePort()];
    const server = spawnCli(["start", "--port", String(httpPort)], { DATABASE_URL: via(db.url, pgPort), TEAMMEM_DB_CONNECT_TIMEOUT_MS: "20000" });
    await server.waitFor(/database not reachable/);
    expect(await bindError(httpPort)).toBe("EADDRINUSE");
    const early = fetch(`http://127.0.0.1:${httpPort}/readyz`); // accepted now, answered once the server serves
    await new Promise((r) => setTimeout(r, 300));
    await openProxy(pgPort, { host: target.hostname, port: Number(target.port || 5432) });
    expect((await server.waitFor(/listening on (http:\/\/\S+)/))[1]).toBe(`http://127.0.0.1:${httpPort}`);
    expect((await early).status).toBe(200);
    server.child.kill("SIGTERM");
    expect((await server.exited).code).toBe(0);
  }, 90_000);

  it("a start that gives up on PostgreSQL exits 1, closing its port and the connections that waited on it", async () => {
    const [pgPort, httpPort] = [await freePort(), await freePort()];
    const server = spawnCli(["start", "--port", String(httpPort)], { DATABASE_URL: `postgres://teammem@127.0.0.1:${pgPort}/teammem`, TEAMMEM_DB_CONNECT_TIMEOUT_MS: "1500" });
    await server.waitFor(/database not reachable/);
    const early = fetch(`http://127.0.0.1:${httpPort}/readyz`).then(
      (res) => `answered ${res.status}`,
      () => "closed",
    );
    const result = await server.exited;
    expect({ code: result.code, last: result.stderr.trimEnd().split("\n").at(-1) }).toEqual({ code: 1, last: expect.stringMatching(/^teammem-server: cannot reach the database after/) });
    expect(await early).toBe("closed");
    expect(await bindError(httpPort)).toBeNull();
  }, 60_000);

  it("migrate gives up after TEAMMEM_DB_CONNECT_TIMEOUT_MS with one clear message and exit 1", async () => {
    const port = await freePort();
    // A password in the URL, to show it is never printed (built here: no credential-like text in the source).
    const url = new URL(`postgres://127.0.0.1:${port}/teammem`);
    url.username = "teammem";
    url.password = ["not", "shown", "anywhere"].join("-");
    const result = await spawnCli(["migrate"], { DATABASE_URL: url.toString(), TEAMMEM_DB_CONNECT_TIMEOUT_MS: "1200" }).exited;
    const lines = result.stderr.trimEnd().split("\n");
    expect(result.code).toBe(1);
    expect(lines.slice(0, -1).every((l) => NOT_REACHABLE.test(l))).toBe(true);
    expect(lines.length).toBeGreaterThanOrEqual(3);
    expect(lines.at(-1)).toMatch(
      new RegExp(
        `^teammem-server: cannot reach the database after (\\d+) ms and ${lines.length} attempts \\(connect ECONNREFUSED 127\\.0\\.0\\.1:${port}\\); ` +
          `is PostgreSQL running, and is DATABASE_URL right\\? TEAMMEM_DB_CONNECT_TIMEOUT_MS \\(now 1200\\) sets how long a start waits$`,
      ),
    );
    expect(result.stderr).not.toContain(url.password);
    // Waited the setting, not much longer: the last attempt starts before the deadline, and ends at once (refused).
    const waitedMs = Number(/after (\d+) ms/.exec(lines.at(-1)!)![1]);
    expect(waitedMs).toBeGreaterThanOrEqual(1200);
    expect(waitedMs).toBeLessThan(1200 + 3000);
  }, 60_000);

  it("a database that does not exist fails at once with PostgreSQL's message, without retrying", async () => {
    const missing = new URL(postgresUrl());
    missing.pathname = "/teammem_no_such_database";
    let stderr = "";
    const status = await run(["migrate"], { LOG_LEVEL: "silent", DATABASE_URL: missing.toString(), TEAMMEM_DB_CONNECT_TIMEOUT_MS: "20000" }, {
      stdout: () => undefined,
      stderr: (t) => void (stderr += t),
    });
    // The whole of stderr: not one "database not reachable" line.
    expect([status, stderr]).toEqual([1, 'teammem-server: database "teammem_no_such_database" does not exist\n']);
  });
});
