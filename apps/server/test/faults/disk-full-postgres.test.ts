/**
 * PostgreSQL on a full disk (issue 12; beside disk-full.test.ts, which covers the embedded
 * database): a write that finds no space answers 503 `storage_full` with Retry-After 30, never a
 * 500 or a per-operation `internal_error`; every operation acknowledged before is stored; the
 * server keeps answering (/healthz, /readyz and reads 200: PostgreSQL itself still serves them);
 * and once space is freed the same write is applied, without a restart (PostgreSQL recovers by
 * itself, unlike PGlite).
 *
 * How: a tmpfs of 24 MB, mounted on a temporary folder and owned by the PostgreSQL server's OS
 * user (the owner of its data directory), holds a tablespace; a database of its own is created in
 * it (`CREATE DATABASE ... TABLESPACE`), migrated and written to once, then a filler file written
 * as root takes all but ~6 MB of the tmpfs. Only that database's relation files (tables, TOAST,
 * indexes, catalogs; and its sorts' temporary files) live on the tmpfs: the WAL stays in the
 * server's data directory, so a write fails when PostgreSQL extends a relation (SQLSTATE 53100
 * `could not extend file "pg_tblspc/...": No space left on device`), never when it logs it. The
 * database, the tablespace and the mount are removed after, also when the test fails.
 *
 * Needs root (mount) and the tests' PostgreSQL server on this machine, as a superuser (its data
 * directory is the working folder of the process its postmaster.pid names, so the tablespace
 * folder is on its filesystem): skipped with a warning saying why where either is missing or
 * mounting is not permitted; skipped, not failed, under CI too, as disk-full.test.ts is.
 */
import { execFileSync } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, readlinkSync, rmSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { buildApp } from "../../src/app.js";
import { issueToken } from "../../src/admin/tokens.js";
import { openDatabase, type Database } from "../../src/db/database.js";
import { randomStorableText, rowsOf } from "../../src/testing.js";

const SECRET = "pg-disk-full-test-secret-".padEnd(40, "p");
const TMPFS_SIZE = "24m";
/** Room left on the tmpfs by the filler file, bytes: batches of ~1 MB of content (stored twice: the entry and its version) fill it within a few. */
const ROOM_LEFT = 6 * 1024 * 1024;

/** Runs `fn` with a client on `url` (the tests' PostgreSQL server, as a superuser). */
async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * The uid of the OS user the PostgreSQL server at `url` runs as (the owner of its data directory),
 * or why this test cannot run against it: not root here, not a superuser there, or the server is
 * not on this machine (its postmaster.pid names no process here working in that data directory).
 */
async function localServerOwner(url: string): Promise<{ uid: number; gid: number } | { skip: string }> {
  if (process.getuid?.() !== 0) return { skip: "not root (mount and chown need it)" };
  if (!url) return { skip: "no PostgreSQL server for tests" };
  let dataDir: string;
  try {
    dataDir = await withClient(url, async (c) => (await c.query<{ d: string }>("SELECT current_setting('data_directory') AS d")).rows[0]!.d);
  } catch (err) {
    return { skip: `cannot read the PostgreSQL server's data directory (${(err as Error).message}; a superuser is needed)` };
  }
  try {
    const pid = readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]!.trim();
    if (readlinkSync(`/proc/${pid}/cwd`) !== dataDir) throw new Error(`process ${pid} does not work in ${dataDir}`);
    const { uid, gid } = statSync(dataDir);
    return { uid, gid };
  } catch (err) {
    return { skip: `the PostgreSQL server is not on this machine (${(err as Error).message.split("\n")[0]})` };
  }
}

/** Mounts a tmpfs of `size` owned by `owner` at a new folder, or says why mounting is not permitted here. */
function mountTmpfs(size: string, owner: { uid: number; gid: number }): { dir: string } | { skip: string } {
  const dir = mkdtempSync(join(tmpdir(), "teammem-pg-disk-full-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${size},mode=0700,uid=${owner.uid},gid=${owner.gid}`, "tmpfs", dir], { stdio: "pipe" });
    return { dir };
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    return { skip: `cannot mount a tmpfs (${(err as Error).message.split("\n")[0]})` };
  }
}

const serverUrl = inject("postgresUrl");
const owner = await localServerOwner(serverUrl);
// Mounting is probed here (mounted and unmounted at once) so that a filtered-out suite leaves no mount behind.
const probe = "skip" in owner ? owner : mountTmpfs("1m", owner);
if ("dir" in probe) {
  execFileSync("umount", [probe.dir]);
  rmSync(probe.dir, { recursive: true, force: true });
}
const skip = "skip" in probe ? probe.skip : null;
if (skip) console.warn(`disk-full-postgres.test skipped: ${skip}`);
const serverUser = "skip" in owner ? { uid: -1, gid: -1 } : owner;

describe.skipIf(skip !== null)("PostgreSQL on a full disk", () => {
  const suffix = randomBytes(6).toString("hex");
  const tablespace = `teammem_diskfull_${suffix}`;
  const dbName = `teammem_test_diskfull_${suffix}`;
  const dbUrl = (() => {
    const u = new URL(serverUrl);
    u.pathname = `/${dbName}`;
    return u.toString();
  })();
  let root = "";
  let tablespaceCreated = false;
  let databaseCreated = false;
  let database: Database | undefined;
  let app: FastifyInstance | undefined;
  let auth: { authorization: string };
  const filler = () => join(root, "filler");

  beforeAll(async () => {
    const mounted = mountTmpfs(TMPFS_SIZE, serverUser);
    if ("skip" in mounted) throw new Error(mounted.skip);
    root = mounted.dir;
    await withClient(serverUrl, async (c) => {
      await c.query(`CREATE TABLESPACE ${tablespace} LOCATION '${root.replaceAll("'", "''")}'`);
      tablespaceCreated = true;
      await c.query(`CREATE DATABASE ${dbName} TABLESPACE ${tablespace}`);
      databaseCreated = true;
    });
    database = await openDatabase({ kind: "postgres", url: dbUrl });
    await database.migrate();
    app = await buildApp({ db: database.db, jwtSecret: SECRET, limits: { rateLimitMax: 0 } });
    auth = { authorization: `Bearer ${(await issueToken(database.db, SECRET, { teamName: "full", userName: "pat", role: "member" })).token}` };
  }, 30_000);

  afterAll(async () => {
    // Each step runs whatever the one before did; the first failure is rethrown at the end.
    const failures: unknown[] = [];
    const step = async (fn: () => unknown) => {
      try {
        await fn();
      } catch (err) {
        failures.push(err);
      }
    };
    await step(() => app?.close());
    await step(() => database?.close());
    if (databaseCreated) await step(() => withClient(serverUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`)));
    if (tablespaceCreated) await step(() => withClient(serverUrl, (c) => c.query(`DROP TABLESPACE IF EXISTS ${tablespace}`)));
    if (root) {
      await step(() => execFileSync("umount", ["-l", root], { stdio: "pipe" }));
      await step(() => rmSync(root, { recursive: true, force: true }));
    }
    if (failures.length) throw failures[0];
  }, 30_000);

  const batch = (operations: unknown[]) => app!.inject({ method: "POST", url: "/v1/namespaces/full-ns/batch", headers: auth, payload: { operations } });
  type Op = { opId: string; path: string; baseVersion: number; content: string };
  type Results = { results: { opId: string; path: string; status: string; code?: string }[] };

  it("answers 503 storage_full (never a 500), loses no acknowledged write, keeps serving reads, and applies the same write once space is freed", async () => {
    const acknowledged = new Map<string, string>(); // path -> content of every operation answered applied
    const record = (ops: Op[], results: Results["results"]) => {
      // Never a per-operation internal_error: an operation is applied, or the batch ends with the 503.
      expect(results.filter((r) => r.status !== "applied")).toEqual([]);
      for (const r of results) acknowledged.set(r.path, ops.find((o) => o.opId === r.opId)!.content);
    };
    // A first write with room to spare, then a filler file (written as root) takes all but ROOM_LEFT of the tmpfs.
    const first = [{ opId: randomUUID(), path: "team/first.md", baseVersion: 0, content: "first\n" }];
    const firstReply = await batch(first);
    expect(firstReply.statusCode).toBe(200);
    record(first, firstReply.json<Results>().results);
    // Every page of the new database on the tmpfs first: CREATE DATABASE leaves its copy's files
    // sparse, and a checkpoint that cannot write a page into a hole fails for the whole cluster (a
    // DROP DATABASE of another test file, running meanwhile, failed with `checkpoint request failed`).
    await withClient(serverUrl, (c) => c.query("CHECKPOINT"));
    const free = Number(execFileSync("df", ["--output=avail", "-B1", root], { encoding: "utf8" }).trim().split("\n")[1]);
    writeFileSync(filler(), Buffer.alloc(Math.max(0, free - ROOM_LEFT)));

    // Batches of 5 entries of ~200 KB of random text (incompressible) until the disk refuses one: ~6 MB free, within 5.
    let refused: { ops: Op[]; reply: Awaited<ReturnType<typeof batch>> } | undefined;
    for (let n = 0; n < 20 && !refused; n++) {
      const ops = Array.from({ length: 5 }, (_, k) => ({
        opId: randomUUID(),
        path: `team/big/b${n}-${k}.md`,
        baseVersion: 0,
        content: `${randomStorableText(200 * 1024)}\n`,
      }));
      const reply = await batch(ops);
      if (reply.statusCode !== 200) {
        refused = { ops, reply };
        break;
      }
      record(ops, reply.json<Results>().results);
    }
    expect(refused, "the disk never filled up").toBeDefined();
    const { ops, reply } = refused!;
    expect({ status: reply.statusCode, retryAfter: reply.headers["retry-after"], body: reply.json() }).toEqual({
      status: 503,
      retryAfter: "30",
      body: { code: "storage_full", message: expect.stringContaining("no disk space left"), details: { retryAfterMs: 30_000 } },
    });

    // The rest of the cluster is not held up: a checkpoint (which DROP DATABASE asks for) still succeeds.
    await withClient(serverUrl, (c) => c.query("CHECKPOINT"));

    // Still answering: alive, ready (PostgreSQL serves reads), reads of what was acknowledged.
    expect((await app!.inject({ url: "/healthz" })).statusCode).toBe(200);
    const ready = await app!.inject({ url: "/readyz" });
    expect({ status: ready.statusCode, database: ready.json().checks.database }).toEqual({ status: 200, database: "ok" });
    const [somePath, someContent] = [...acknowledged][0]!;
    const entry = await app!.inject({ url: `/v1/namespaces/full-ns/entry?path=${encodeURIComponent(somePath)}`, headers: auth });
    expect({ status: entry.statusCode, content: entry.json().content }).toEqual({ status: 200, content: someContent });
    const changes = await app!.inject({ url: "/v1/namespaces/full-ns/changes?since=0&limit=1000", headers: auth });
    expect(changes.statusCode).toBe(200);
    expect(changes.json<{ changes: { path: string }[] }>().changes.map((c) => c.path)).toEqual(expect.arrayContaining([...acknowledged.keys()]));
    // Later writes the same 503: the same batch (one transaction for its run), one operation alone, a compare-and-set.
    const again = await batch(ops);
    expect({ status: again.statusCode, code: again.json().code }).toEqual({ status: 503, code: "storage_full" });
    const alone = await batch([{ ...ops[0]!, opId: randomUUID(), path: "team/alone.md" }]);
    expect({ status: alone.statusCode, retryAfter: alone.headers["retry-after"], code: alone.json().code }).toEqual({ status: 503, retryAfter: "30", code: "storage_full" });
    const put = await app!.inject({ method: "PUT", url: "/v1/namespaces/full-ns/entry?path=team/put.md", headers: auth, payload: { baseVersion: 0, content: ops[0]!.content } });
    expect({ status: put.statusCode, retryAfter: put.headers["retry-after"], code: put.json().code }).toEqual({ status: 503, retryAfter: "30", code: "storage_full" });

    // Space freed: the same batch (same opIds) is applied, on the same server and connections.
    unlinkSync(filler());
    const retried = await batch(ops);
    expect(retried.statusCode).toBe(200);
    expect(retried.json<Results>().results.map((r) => r.status)).toEqual(ops.map(() => "applied"));
    for (const o of ops) acknowledged.set(o.path, o.content);

    // Every acknowledged operation is stored, with its content.
    const stored = await rowsOf<{ path: string; content: string }>(
      database!,
      sql`SELECT e.path, e.content FROM entries e JOIN namespaces n ON n.id = e.namespace_id WHERE n.name = 'full-ns' AND e.content IS NOT NULL`,
    );
    const byPath = new Map(stored.map((r) => [r.path, r.content]));
    expect([...acknowledged].filter(([path, content]) => byPath.get(path) !== content).map(([path]) => path)).toEqual([]);
  }, 30_000);
});
