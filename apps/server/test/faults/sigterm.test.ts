/**
 * SIGTERM on a real `teammem-server start` process (issue 12): it stops accepting connections,
 * lets the request in flight finish its transaction, answers with the stored result, and exits 0;
 * when a request outlasts TEAMMEM_SHUTDOWN_TIMEOUT_MS the process exits 1 anyway and the
 * transaction rolls back. The in-flight request is held by a row lock taken from another connection.
 * Built CLI (`npx tsc -b` first), real PostgreSQL.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { Agent, request as httpRequest } from "node:http";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterEach, describe, expect, inject, it } from "vitest";
import { createPostgresDatabase, type PostgresTestDatabase } from "../../src/testing.js";

const CLI = fileURLToPath(new URL("../../dist/cli.js", import.meta.url));

interface Started {
  child: ChildProcess;
  url: string;
  token: string;
  stderr: () => string;
  exited: Promise<number | null>;
}

function cleanEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !/^(DATABASE_URL|JWT_SECRET|HOST|PORT|TEAMMEM_.*)$/.test(k)) env[k] = v;
  }
  return { ...env, LOG_LEVEL: "warn", ...extra };
}

/** Starts the server on a free port and resolves once its banner (URL, first admin token) is out. */
function start(env: Record<string, string>): Promise<Started> {
  const child = spawn(process.execPath, [CLI, "start", "--port", "0"], { env: cleanEnv(env), stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stderr!.on("data", (b) => (err += b));
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", (b) => {
      out += b;
      const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
      const token = /Admin token \(shown once, keep it safe\): (\S+)/.exec(out)?.[1];
      if (url && token) resolve({ child, url, token, stderr: () => err, exited });
    });
    void exited.then((code) => reject(new Error(`server exited ${code}\n${out}${err}`)));
  });
}

/**
 * One request, on its own connection (or on `agent`'s, kept alive like fetch's); resolves with
 * status, body and the Connection header, or the connection error's code.
 */
function send(url: string, token: string, path: string, body?: unknown, agent?: Agent): Promise<{ status: number; body: string; connection?: string } | { error: string }> {
  return new Promise((resolve) => {
    const req = httpRequest(
      `${url}${path}`,
      {
        method: body === undefined ? "GET" : "POST",
        agent: agent ?? false,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      },
      (res) => {
        let text = "";
        res.on("data", (c) => (text += c));
        res.on("end", () => resolve({ status: res.statusCode!, body: text, connection: res.headers.connection }));
      },
    );
    req.on("error", (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/** Resolves once `sql` shows a backend waiting for a lock (the request is inside its transaction). */
async function waitForLockWaiter(client: pg.Client): Promise<void> {
  for (;;) {
    const { rows } = await client.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'");
    if (rows[0].n > 0) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("teammem-server on SIGTERM", () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  async function setUp(extraEnv: Record<string, string>): Promise<{ server: Started; holder: pg.Client; db: PostgresTestDatabase }> {
    const db = await createPostgresDatabase(inject("postgresUrl"));
    cleanups.push(() => db.drop());
    const server = await start({ DATABASE_URL: db.url, TEAMMEM_DB_LOCK_TIMEOUT_MS: "60000", ...extraEnv });
    cleanups.push(async () => {
      server.child.kill("SIGKILL");
      await server.exited;
    });
    const holder = new pg.Client({ connectionString: db.url });
    await holder.connect();
    cleanups.push(() => holder.end());
    const first = await send(server.url, server.token, "/v1/namespaces/term-ns/batch", { operations: [{ opId: randomUUID(), path: "team/a.md", baseVersion: 0, content: "a\n" }] });
    expect(first).toMatchObject({ status: 200 });
    return { server, holder, db };
  }

  it("stops accepting, finishes the transaction in flight, answers it and exits 0", async () => {
    const { server, holder } = await setUp({ TEAMMEM_SHUTDOWN_TIMEOUT_MS: "60000" });
    await holder.query("BEGIN");
    await holder.query("SELECT 1 FROM namespaces WHERE name = 'term-ns' FOR UPDATE");
    const inFlight = send(server.url, server.token, "/v1/namespaces/term-ns/batch", {
      operations: [{ opId: randomUUID(), path: "team/b.md", baseVersion: 0, content: "b\n" }],
    });
    await waitForLockWaiter(holder);
    server.child.kill("SIGTERM");
    // The listening socket closes at once: a new connection is refused while the write still waits.
    for (;;) {
      const probe = await send(server.url, server.token, "/healthz");
      // A probe accepted just before the socket closed is reset, not served (seen on Node 24): try again.
      if ("error" in probe && probe.error !== "ECONNRESET") {
        expect(probe.error).toBe("ECONNREFUSED");
        break;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    await holder.query("COMMIT");
    const answered = await inFlight;
    expect(answered).toMatchObject({ status: 200 });
    expect(JSON.parse((answered as { body: string }).body).results[0].status).toBe("applied");
    expect(await server.exited).toBe(0);
    const { rows } = await holder.query("SELECT path FROM entries e JOIN namespaces n ON n.id = e.namespace_id WHERE n.name = 'term-ns' ORDER BY path");
    expect(rows.map((r) => r.path)).toEqual(["team/a.md", "team/b.md"]);
    expect(server.stderr()).toContain("teammem-server: shutting down");
  });

  it("closes a kept-alive connection once its in-flight request is answered, and exits 0 without waiting for the timeout", async () => {
    // Before: the answered connection stayed open (Fastify closes only connections idle when close
    // begins), the close waited for it, and the process exited 1 at the timeout.
    const { server, holder } = await setUp({ TEAMMEM_SHUTDOWN_TIMEOUT_MS: "30000" });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    cleanups.push(async () => agent.destroy());
    expect(await send(server.url, server.token, "/v1/team/whoami", undefined, agent)).toMatchObject({ status: 200, connection: "keep-alive" });
    await holder.query("BEGIN");
    await holder.query("SELECT 1 FROM namespaces WHERE name = 'term-ns' FOR UPDATE");
    const inFlight = send(server.url, server.token, "/v1/namespaces/term-ns/batch", { operations: [{ opId: randomUUID(), path: "team/k.md", baseVersion: 0, content: "k\n" }] }, agent);
    await waitForLockWaiter(holder);
    server.child.kill("SIGTERM");
    // The close has begun (the in-flight request is answered after it, not before).
    while (!server.stderr().includes("teammem-server: shutting down")) await new Promise((r) => setTimeout(r, 20));
    await holder.query("COMMIT");
    expect(await inFlight).toMatchObject({ status: 200, connection: "close" });
    expect(await server.exited).toBe(0);
    expect(server.stderr()).not.toContain("requests still running");
  });

  it("exits 1 once TEAMMEM_SHUTDOWN_TIMEOUT_MS passes with a request still running; its transaction rolls back", async () => {
    const { server, holder } = await setUp({ TEAMMEM_SHUTDOWN_TIMEOUT_MS: "500" });
    await holder.query("BEGIN");
    await holder.query("SELECT 1 FROM namespaces WHERE name = 'term-ns' FOR UPDATE");
    const inFlight = send(server.url, server.token, "/v1/namespaces/term-ns/batch", {
      operations: [{ opId: randomUUID(), path: "team/late.md", baseVersion: 0, content: "late\n" }],
    });
    await waitForLockWaiter(holder);
    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(1);
    expect(await inFlight).toEqual({ error: "ECONNRESET" });
    await holder.query("COMMIT");
    const { rows } = await holder.query("SELECT path FROM entries e JOIN namespaces n ON n.id = e.namespace_id WHERE n.name = 'term-ns' ORDER BY path");
    expect(rows.map((r) => r.path)).toEqual(["team/a.md"]);
    expect(server.stderr()).toContain("requests still running after 500 ms");
  });
});
