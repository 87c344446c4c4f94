/**
 * The server SIGKILLed in the middle of a batch (issue 12): a real process on PostgreSQL is killed
 * once part of a 100-operation batch is stored; a new process takes over and the client resends the
 * same batch (same opIds): every operation is then in history exactly once. Built CLI, real PostgreSQL.
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterAll, describe, expect, inject, it } from "vitest";
import { createPostgresDatabase, type PostgresTestDatabase } from "../../src/testing.js";

const CLI = fileURLToPath(new URL("../../dist/cli.js", import.meta.url));

function start(url: string): Promise<{ url: string; out: string; kill: (s: NodeJS.Signals) => void; exited: Promise<unknown> }> {
  const env: Record<string, string> = { PATH: process.env["PATH"] ?? "", DATABASE_URL: url, LOG_LEVEL: "warn" };
  const child = spawn(process.execPath, [CLI, "start", "--port", "0"], { env, stdio: ["ignore", "pipe", "pipe"] });
  const exited = new Promise((r) => child.once("exit", r));
  let out = "";
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", (b) => {
      out += b;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) setTimeout(() => resolve({ url: m[1]!, out, kill: (s) => child.kill(s), exited }), 100);
    });
    void exited.then((code) => reject(new Error(`server exited ${String(code)}\n${out}`)));
  });
}

describe("teammem-server SIGKILLed in the middle of a batch", () => {
  let db: PostgresTestDatabase;
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
    await db?.drop();
  });

  it("stores every operation exactly once after the client resends the batch to the restarted server", async () => {
    db = await createPostgresDatabase(inject("postgresUrl"));
    const first = await start(db.url);
    cleanups.push(async () => first.kill("SIGKILL"));
    const token = /Admin token \(shown once, keep it safe\): (\S+)/.exec(first.out)![1]!;
    const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    const body = JSON.stringify({
      // Each path written twice in a row (create, then edit): a set-based run ends where a path repeats
      // (store/apply-batch.ts), so the batch commits in ~50 transactions and a kill can land between them.
      operations: Array.from({ length: 100 }, (_, i) => ({ opId: randomUUID(), path: `team/f${Math.floor(i / 2)}.md`, baseVersion: i % 2, content: `file ${i}\n` })),
    });
    const watcher = new pg.Client({ connectionString: db.url });
    await watcher.connect();
    cleanups.push(() => watcher.end());

    const inFlight = fetch(`${first.url}/v1/namespaces/kill-ns/batch`, { method: "POST", headers, body }).then(
      (r) => r.status,
      () => "connection lost",
    );
    // Kill once some (not all) operations are stored.
    for (;;) {
      const { rows } = await watcher.query("SELECT count(*)::int AS n FROM operations");
      if (rows[0].n >= 5) break;
      await new Promise((r) => setTimeout(r, 5));
    }
    first.kill("SIGKILL");
    await first.exited;
    const stored = (await watcher.query("SELECT count(*)::int AS n FROM operations")).rows[0].n as number;
    expect(await inFlight).toBe("connection lost");
    expect(stored).toBeLessThan(100);

    const second = await start(db.url);
    cleanups.push(async () => second.kill("SIGKILL"));
    const resent = await fetch(`${second.url}/v1/namespaces/kill-ns/batch`, { method: "POST", headers, body });
    expect(resent.status).toBe(200);
    const results = ((await resent.json()) as { results: { status: string }[] }).results;
    expect(results.map((r) => r.status)).toEqual(Array(100).fill("applied"));
    const { rows } = await watcher.query("SELECT count(*)::int AS ops, count(DISTINCT op_id)::int AS distinct_ops FROM operations");
    expect(rows[0]).toEqual({ ops: 100, distinct_ops: 100 });
    const versions = await watcher.query("SELECT count(*)::int AS n, count(DISTINCT path)::int AS entries FROM versions");
    expect(versions.rows[0]).toEqual({ n: 100, entries: 50 });
  });
});
