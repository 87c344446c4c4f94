/**
 * PostgreSQL restarted during writes (issue 12): on a throwaway cluster of its own (initdb/pg_ctl
 * in a temp folder on a free port, as the postgres user when run as root; never the shared one),
 * the server keeps running, /readyz shows the outage (503, database unreachable) and the recovery
 * (200) by itself, and writes resume; every write acknowledged is stored once.
 */
import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../src/app.js";
import { issueToken } from "../../src/admin/tokens.js";
import { openDatabase, type Database } from "../../src/db/database.js";

const VERSIONS = existsSync("/usr/lib/postgresql") ? readdirSync("/usr/lib/postgresql").sort() : [];
const BIN = VERSIONS.length ? `/usr/lib/postgresql/${VERSIONS.at(-1)}/bin` : "";
const SECRET = "restart-test-secret-".padEnd(40, "r");

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

describe.skipIf(!BIN)("PostgreSQL restarted under a running server", () => {
  const dir = mkdtempSync(join(tmpdir(), "teammem-pgrestart-"));
  const data = join(dir, "data");
  let port = 0;
  let database: Database;
  let app: FastifyInstance;
  const asRoot = process.getuid?.() === 0;
  const pg = (tool: string, args: string[]) =>
    execFileSync(asRoot ? "runuser" : join(BIN, tool), asRoot ? ["-u", "postgres", "--", join(BIN, tool), ...args] : args, { stdio: "pipe", timeout: 60_000 });
  const pgCtl = (...args: string[]) => pg("pg_ctl", ["-D", data, "-w", "-t", "30", ...args]);

  beforeAll(async () => {
    chmodSync(dir, 0o777);
    port = await freePort();
    pg("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8"]);
    pgCtl("-o", `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`, "-l", join(dir, "log"), "start");
    database = await openDatabase({ kind: "postgres", url: `postgres://postgres@127.0.0.1:${port}/postgres`, connectTimeoutMs: 1000 });
    await database.migrate();
    app = await buildApp({ db: database.db, jwtSecret: SECRET, limits: { rateLimitMax: 0 } });
    await app.ready();
  });
  afterAll(async () => {
    await app?.close();
    await database?.close();
    try {
      pgCtl("-m", "immediate", "stop");
    } catch {
      // already stopped
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it("shows the outage on /readyz, recovers by itself, and stores each acknowledged write once", async () => {
    const auth = { authorization: `Bearer ${(await issueToken(database.db, SECRET, { teamName: "r", userName: "rae", role: "member" })).token}` };
    const write = (path: string) =>
      app.inject({ method: "POST", url: "/v1/namespaces/restart-ns/batch", headers: auth, payload: { operations: [{ opId: randomUUID(), path, baseVersion: 0, content: `${path}\n` }] } });
    expect((await write("team/before.md")).statusCode).toBe(200);

    pgCtl("-m", "fast", "stop");
    const during = await write("team/during.md");
    expect({ status: during.statusCode, code: during.json().code }).toEqual({ status: 503, code: "database_busy" });
    const down = await app.inject({ url: "/readyz" });
    expect({ status: down.statusCode, database: down.json().checks.database }).toEqual({ status: 503, database: "unreachable" });

    pgCtl("-o", `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`, "-l", join(dir, "log"), "start");
    for (;;) {
      const res = await app.inject({ url: "/readyz" });
      if (res.json().checks.database === "ok") break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect((await write("team/after.md")).statusCode).toBe(200);
    const changes = (await app.inject({ url: "/v1/namespaces/restart-ns/changes?since=0", headers: auth })).json();
    expect(changes.changes.map((c: { path: string }) => c.path).sort()).toEqual(["team/after.md", "team/before.md"]);
  });
});
