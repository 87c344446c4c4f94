/**
 * The embedded database (PGlite) on a full disk (try19 F9): a write that finds no space answers 503
 * `storage_full` with Retry-After, never a per-operation `internal_error`; the server keeps
 * answering (/healthz alive, /readyz 503 naming the full disk) and closes; a restart with space
 * freed finds every acknowledged operation. A real tmpfs of a fixed size: it needs `mount` (root);
 * the test is skipped, saying why, where mounting is not permitted.
 */
import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../src/app.js";
import { issueToken } from "../../src/admin/tokens.js";
import { openDatabase, type Database } from "../../src/db/database.js";
import { randomStorableText, rowsOf, seedPgliteDataDir } from "../../src/testing.js";

const SECRET = "disk-full-test-secret-".padEnd(40, "d");

/** Mounts a tmpfs of `size` at a new folder; null (and why) when mounting is not permitted here. */
function mountTmpfs(size: string): { dir: string } | { skip: string } {
  const dir = mkdtempSync(join(tmpdir(), "teammem-disk-full-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", dir], { stdio: "pipe" });
    return { dir };
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    return { skip: `cannot mount a tmpfs (${(err as Error).message.split("\n")[0]})` };
  }
}

const mounted = mountTmpfs("64m");
if ("skip" in mounted) console.warn(`disk-full.test skipped: ${mounted.skip}`);

describe.skipIf("skip" in mounted)("the embedded database on a full disk", () => {
  const root = "dir" in mounted ? mounted.dir : "";
  const dataDir = join(root, "db");
  let database: Database;
  let app: FastifyInstance;
  let auth: { authorization: string };
  const acknowledged = new Map<string, string>(); // path -> content of every operation answered applied

  const open = async () => {
    database = await openDatabase({ kind: "pglite", dataDir });
    await database.migrate();
    app = await buildApp({ db: database.db, jwtSecret: SECRET, limits: { rateLimitMax: 0 } });
  };
  const batch = (operations: unknown[]) => app.inject({ method: "POST", url: "/v1/namespaces/full-ns/batch", headers: auth, payload: { operations } });

  beforeAll(async () => {
    await seedPgliteDataDir(dataDir);
    await open();
    auth = { authorization: `Bearer ${(await issueToken(database.db, SECRET, { teamName: "full", userName: "fay", role: "member" })).token}` };
    // Leave about 3 MB free: a filler file takes the rest of the tmpfs.
    const free = Number(execFileSync("df", ["--output=avail", "-B1", root], { encoding: "utf8" }).trim().split("\n")[1]);
    writeFileSync(join(root, "filler"), Buffer.alloc(Math.max(0, free - 3 * 1024 * 1024)));
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await database?.close();
    if (root) {
      execFileSync("umount", ["-l", root]);
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("answers 503 storage_full (not internal_error), keeps answering, closes, and a restart with space has every acknowledged operation", async () => {
    // Batches of 5 entries of ~200 KB of random text until the disk refuses one (~3 MB free: within 10 batches).
    let refused: Awaited<ReturnType<typeof batch>> | undefined;
    for (let n = 0; n < 20 && !refused; n++) {
      const ops = Array.from({ length: 5 }, (_, k) => ({
        opId: randomUUID(),
        path: `team/big/b${n}-${k}.md`,
        baseVersion: 0,
        content: `${randomStorableText(200 * 1024)}\n`,
      }));
      const reply = await batch(ops);
      if (reply.statusCode !== 200) {
        refused = reply;
        break;
      }
      const results = reply.json<{ results: { opId: string; path: string; status: string; code?: string }[] }>().results;
      // Never a per-operation internal_error: an operation is applied, or the batch ends with the 503.
      expect(results.filter((r) => r.status !== "applied")).toEqual([]);
      for (const r of results) acknowledged.set(r.path, ops.find((o) => o.opId === r.opId)!.content);
    }
    expect(refused, "the disk never filled up").toBeDefined();
    expect({ status: refused!.statusCode, retryAfter: refused!.headers["retry-after"], code: refused!.json().code }).toEqual({
      status: 503,
      retryAfter: "30",
      code: "storage_full",
    });

    // Still answering: liveness yes, readiness no (naming the disk), later writes the same 503.
    expect((await app.inject({ method: "GET", url: "/healthz" })).statusCode).toBe(200);
    const ready = await app.inject({ method: "GET", url: "/readyz" });
    expect({ status: ready.statusCode, database: ready.json().checks.database }).toEqual({ status: 503, database: expect.stringContaining("disk full") });
    const again = await batch([{ opId: randomUUID(), path: "team/small.md", baseVersion: 0, content: "small\n" }]);
    expect({ status: again.statusCode, code: again.json().code }).toEqual({ status: 503, code: "storage_full" });

    // Closes (the CLI's SIGTERM path: app, then database), then a restart with space freed.
    await app.close();
    await database.close();
    rmSync(join(root, "filler"));
    await open();
    const stored = await rowsOf<{ path: string; content: string }>(
      database,
      sql`SELECT e.path, e.content FROM entries e JOIN namespaces n ON n.id = e.namespace_id WHERE n.name = 'full-ns' AND e.content IS NOT NULL`,
    );
    const byPath = new Map(stored.map((r) => [r.path, r.content]));
    expect(acknowledged.size).toBeGreaterThan(0);
    expect([...acknowledged].filter(([path, content]) => byPath.get(path) !== content).map(([path]) => path)).toEqual([]);
    // And it writes again.
    const after = await batch([{ opId: randomUUID(), path: "team/after.md", baseVersion: 0, content: "after\n" }]);
    expect(after.statusCode).toBe(200);
  }, 120_000);
});
