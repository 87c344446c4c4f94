/**
 * Fault (issue 12): a client killed while flushing. `teammem sync` (the built CLI, a real process)
 * is SIGKILLed while the server (a real `teammem-server` process on PostgreSQL) is storing one of
 * its batches, in several rounds; `teammem sync` run again afterwards resends what was not
 * acknowledged with the same operation ids, and every queued operation is in history exactly once:
 * no file lost, none stored twice, nothing left pending.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterEach, describe, expect, inject, it } from "vitest";
import { createPostgresDatabase } from "@teammem/server/testing";
import { CLIENT_CLI, runCli, startServer } from "../../scripts/lib/processes.mjs";

const FILES = 200;
const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe("teammem sync SIGKILLed while flushing", () => {
  it("stores every queued operation exactly once after sync runs again", async () => {
    const db = await createPostgresDatabase(inject("postgresUrl"));
    cleanups.push(db.drop);
    const server = await startServer({ databaseUrl: db.url });
    cleanups.push(server.stop);
    const admin = /Admin token \(shown once, keep it safe\): (\S+)/.exec(server.output())![1]!;
    const issued = await fetch(`${server.url}/v1/admin/tokens`, {
      method: "POST",
      headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
      body: JSON.stringify({ user: "kim", role: "member" }),
    });
    const env = { TEAMMEM_TOKEN: ((await issued.json()) as { token: string }).token };
    const dir = mkdtempSync(join(tmpdir(), "teammem-kill-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    runCli(CLIENT_CLI, ["init", "--dir", dir, "--server", server.url, "--namespace", "kill-ns"], { env });
    mkdirSync(join(dir, "team"), { recursive: true });
    const expected = new Map<string, string>();
    for (let i = 0; i < FILES; i++) {
      const text = `file ${i}\n${"line of notes\n".repeat(20)}`;
      writeFileSync(join(dir, "team", `f${i}.md`), text);
      expected.set(`f${i}.md`, text);
    }
    const watcher = new pg.Client({ connectionString: db.url });
    await watcher.connect();
    cleanups.push(() => watcher.end());
    const stored = async () => (await watcher.query("SELECT count(*)::int AS n FROM operations")).rows[0].n as number;

    // Rounds: start a sync, wait until the server is storing one of its batches, SIGKILL the client.
    const killedAt: number[] = [];
    for (let round = 0; round < 3; round++) {
      const before = await stored();
      if (before === FILES) break;
      const child = spawn(process.execPath, [CLIENT_CLI, "sync", "--dir", dir], { env: { PATH: process.env["PATH"] ?? "", ...env }, stdio: "ignore" });
      const exited = once(child, "exit");
      let done = false;
      void exited.then(() => (done = true));
      while (!done && (await stored()) === before) await new Promise((r) => setTimeout(r, 5));
      if (done) break;
      child.kill("SIGKILL");
      await exited;
      killedAt.push(await stored());
      // The killed command's lock would be taken over after 30 s; age it instead of waiting.
      const past = new Date(Date.now() - 60_000);
      try {
        utimesSync(join(dir, ".teammem", "command.lock"), past, past);
      } catch {
        /* not held */
      }
    }
    // At least one kill landed while part of the files was stored.
    expect(killedAt.length).toBeGreaterThan(0);
    expect(killedAt[0]).toBeLessThan(FILES);

    const again = runCli(CLIENT_CLI, ["sync", "--dir", dir], { env });
    expect(again.status).toBe(0);
    const status = JSON.parse(runCli(CLIENT_CLI, ["status", "--dir", dir, "--json"], { env }).stdout) as { pending: unknown[] };
    expect(status.pending).toEqual([]);

    const { rows } = await watcher.query<{ path: string; n: number; content: string }>(
      "SELECT path, count(*)::int AS n, min(content) AS content FROM versions GROUP BY path ORDER BY path",
    );
    expect(rows.length).toBe(FILES);
    expect(rows.filter((r) => r.n !== 1)).toEqual([]);
    expect(Object.fromEntries(rows.map((r) => [r.path, r.content]))).toEqual(Object.fromEntries(expected));
    const ops = (await watcher.query("SELECT count(*)::int AS n, count(DISTINCT op_id)::int AS d FROM operations")).rows[0];
    expect(ops).toEqual({ n: FILES, d: FILES });
    // The folder holds what it wrote.
    for (const [path, text] of expected) expect(readFileSync(join(dir, "team", path), "utf8")).toBe(text);
  }, 120_000);
});
