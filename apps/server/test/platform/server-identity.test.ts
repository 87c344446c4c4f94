/**
 * Server identity and epoch (issue 8): created once per database, carried by every reply that
 * carries a cursor, a new epoch on every restore (detected where PostgreSQL and PGlite let us),
 * import (`startNewEpoch`) or operator rotation; stale cursors and batches of another epoch refused.
 */
import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readdirSync } from "node:fs";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, inject, it, onTestFinished } from "vitest";
import { buildApp } from "../../src/app.js";
import { openDatabase } from "../../src/db/database.js";
import { loadServerIdentity, startNewEpoch } from "../../src/identity/server-identity.js";
import { createPostgresDatabase, createTestDatabase, DATABASE_KINDS, rowsOf } from "../../src/testing.js";
import { bearer, startTestServer, SECRET, type TestServer } from "./support.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe.each(DATABASE_KINDS)("server identity on %s", (kind) => {
  let server: TestServer;
  let member: string;
  beforeAll(async () => {
    server = await startTestServer(kind, { limits: { rateLimitMax: 0, maxEntryBytes: 1234, maxOperationsPerBatch: 7 }, identityCacheMs: 0 });
    member = (await server.token("idt", "ida", "member")).token;
  });
  afterAll(() => server?.close());

  const get = async (url: string) => server.app.inject({ url, headers: bearer(member) });
  const post = (url: string, payload: unknown, method: "POST" | "PUT" = "POST") =>
    server.app.inject({ method, url, headers: bearer(member), payload: payload as object });

  it("answers GET /v1/server with its identity, epoch and limits, and 401 without a token", async () => {
    const res = await get("/v1/server");
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      server: { id: expect.stringMatching(UUID), epoch: expect.stringMatching(UUID) },
      epochStartedAt: expect.any(String),
      epochReason: "first start",
      limits: { maxEntryBytes: 1234, maxBodyBytes: 8 * 1024 * 1024, maxEntriesPerNamespace: 10_000, maxOperationsPerBatch: 7 },
    });
    expect((await server.app.inject({ url: "/v1/server" })).statusCode).toBe(401);
  });

  it("carries the same server identity and epoch in every reply that carries a cursor", async () => {
    const { server: ref } = (await get("/v1/server")).json();
    const ns = "/v1/namespaces/idt-ns";
    const replies: [string, Awaited<ReturnType<typeof get>>][] = [
      ["PUT namespace", await post(ns, undefined, "PUT")],
      ["GET namespaces", await get("/v1/namespaces")],
      ["POST batch (new)", await post(`${ns}/batch`, { operations: [{ opId: randomUUID(), path: "a.md", baseVersion: 0, content: "one\n" }] })],
      ["POST batch (edit)", await post(`${ns}/batch`, { operations: [{ opId: randomUUID(), path: "a.md", baseVersion: 1, content: "two\n" }] })],
      ["GET changes", await get(`${ns}/changes?since=0`)],
      ["GET heads", await get(`${ns}/heads`)],
      ["GET entry", await get(`${ns}/entry?path=a.md`)],
      ["PUT entry", await post(`${ns}/entry?path=b.md`, { baseVersion: 0, content: "b\n" }, "PUT")],
      ["GET history", await get(`${ns}/history?path=a.md`)],
      ["GET version", await get(`${ns}/version?path=a.md&version=1`)],
      ["POST restore", await post(`${ns}/restore`, { opId: randomUUID(), path: "a.md", version: 1 })],
      ["GET conflicts", await get(`${ns}/conflicts`)],
      ["POST entries/read", await post(`${ns}/entries/read`, { paths: ["a.md"] })],
      ["POST versions/find", await post(`${ns}/versions/find`, { paths: [{ path: "a.md", candidates: ["0".repeat(16)] }] })],
    ];
    for (const [what, res] of replies) expect({ what, ok: res.statusCode < 300, server: res.json().server }).toEqual({ what, ok: true, server: ref });
  });

  it("keeps the identity and epoch across restarts on the same database", async () => {
    const before = await loadServerIdentity(server.tdb.database.db);
    const again = await buildApp({ db: server.tdb.database.db, jwtSecret: SECRET });
    onTestFinished(() => again.close());
    const res = await again.inject({ url: "/v1/server", headers: bearer(member) });
    expect(res.json().server).toEqual(before.server);
    expect(await Promise.all([loadServerIdentity(server.tdb.database.db), loadServerIdentity(server.tdb.database.db)])).toEqual([before, before]);
  });

  it("starts a new epoch (same identity) with startNewEpoch, and a running app answers it once its cache expires", async () => {
    const before = (await get("/v1/server")).json();
    const after = await startNewEpoch(server.tdb.database.db, "import of backup.jsonl");
    expect(after.server.id).toBe(before.server.id);
    expect(after.server.epoch).not.toBe(before.server.epoch);
    expect((await get("/v1/server")).json()).toMatchObject({ server: after.server, epochReason: "import of backup.jsonl" });
    // Started once: loading again finds the database where the new epoch started.
    expect(await loadServerIdentity(server.tdb.database.db)).toEqual(after);
  });

  it("starts a new epoch when the settings rows are restored (delete and insert them back, as a data-only restore does)", async () => {
    const before = await loadServerIdentity(server.tdb.database.db);
    const rows = await rowsOf<{ key: string; value: string }>(server.tdb.database, sql`SELECT key, value FROM server_settings`);
    await server.tdb.database.db.transaction(async (tx) => {
      await tx.execute(sql`DELETE FROM server_settings`);
      for (const r of rows) await tx.execute(sql`INSERT INTO server_settings (key, value) VALUES (${r.key}, ${r.value})`);
    });
    const [a, b] = await Promise.all([loadServerIdentity(server.tdb.database.db), loadServerIdentity(server.tdb.database.db)]);
    expect(a).toEqual(b); // two processes noticing at once start one epoch
    expect(a.server.id).toBe(before.server.id);
    expect(a.server.epoch).not.toBe(before.server.epoch);
    expect(a.epochReason).toBe("database restored or replaced (settings rows changed)");
    expect(await loadServerIdentity(server.tdb.database.db)).toEqual(a);
  });

  it("refuses changes since a cursor above the namespace's with 409 stale_cursor naming the cursor and server", async () => {
    const ns = "/v1/namespaces/idt-stale";
    await post(`${ns}/batch`, { operations: [{ opId: randomUUID(), path: "s.md", baseVersion: 0, content: "s\n" }] });
    const { server: ref } = (await get("/v1/server")).json();
    const res = await get(`${ns}/changes?since=99`);
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ code: "stale_cursor", message: expect.stringContaining("cursor 99 is above"), details: { cursor: 1, server: ref } });
    expect((await get(`${ns}/changes?since=1`)).json()).toEqual({ changes: [], nextCursor: 1, hasMore: false, server: ref });
  });

  it("refuses a batch sent for another server or epoch with 409 stale_cursor and applies nothing", async () => {
    const ns = "/v1/namespaces/idt-batch";
    const { server: ref } = (await get("/v1/server")).json();
    const op = () => ({ opId: randomUUID(), path: "x.md", baseVersion: 0, content: "x\n" });
    for (const wrong of [{ ...ref, epoch: randomUUID() }, { ...ref, id: randomUUID() }]) {
      const res = await post(`${ns}/batch`, { server: wrong, operations: [op()] });
      expect(res.statusCode).toBe(409);
      expect(res.json()).toMatchObject({ code: "stale_cursor", details: { server: ref } });
    }
    expect((await get(`${ns}/heads`)).json().code).toBe("not_found"); // not even the namespace was created
    const ok = await post(`${ns}/batch`, { server: ref, operations: [op()] });
    expect(ok.json().results[0]).toMatchObject({ status: "applied", version: 1 });
  });
});

describe("server identity in a re-created database", () => {
  it("keeps the identity and starts a new epoch in a new PGlite database filled with the settings rows of another", async () => {
    const original = await createTestDatabase("pglite");
    onTestFinished(() => original.dispose());
    const before = await loadServerIdentity(original.database.db);
    const rows = await rowsOf<{ key: string; value: string }>(original.database, sql`SELECT key, value FROM server_settings`);
    // A new cluster (its own initdb), not createTestDatabase: that one loads a shared template, so
    // it would keep the original's system identifier.
    const copy = await openDatabase({ kind: "pglite", dataDir: "memory://" });
    onTestFinished(() => copy.close());
    await copy.migrate();
    for (const r of rows) await copy.db.execute(sql`INSERT INTO server_settings (key, value) VALUES (${r.key}, ${r.value})`);
    const after = await loadServerIdentity(copy.db);
    expect(after.server.id).toBe(before.server.id);
    expect(after.server.epoch).not.toBe(before.server.epoch);
    expect(after.epochReason).toMatch(/^database restored or replaced \(system identifier, .*settings rows changed\)$/);
  });

  it("keeps the identity and starts a new epoch in a copy of the database made with pg_dump | psql, naming what changed", async () => {
    const original = await createTestDatabase("postgres", inject("postgresUrl"));
    onTestFinished(() => original.dispose());
    const before = await loadServerIdentity(original.database.db);
    const copy = await createPostgresDatabase(inject("postgresUrl"));
    onTestFinished(() => copy.drop());
    const dump = execFileSync(`${pgBin()}/pg_dump`, ["--no-owner", "--dbname", original.url!], { maxBuffer: 64 << 20 });
    execFileSync(`${pgBin()}/psql`, ["--quiet", "--set", "ON_ERROR_STOP=1", "--dbname", copy.url], { input: dump, stdio: ["pipe", "ignore", "inherit"] });
    const restored = await openDatabase({ kind: "postgres", url: copy.url });
    onTestFinished(() => restored.close());
    const after = await loadServerIdentity(restored.db);
    expect(after.server.id).toBe(before.server.id);
    expect(after.server.epoch).not.toBe(before.server.epoch);
    expect(after.epochReason).toBe("database restored or replaced (database oid, settings table, settings rows changed)");
    // The original database, untouched, keeps its epoch.
    expect(await loadServerIdentity(original.database.db)).toEqual(before);
  });
});

/** The folder of PostgreSQL's client programs (pg_dump, psql) of the newest installed version. */
function pgBin(): string {
  const versions = readdirSync("/usr/lib/postgresql").sort((a, b) => Number(b) - Number(a));
  return `/usr/lib/postgresql/${versions[0]}/bin`;
}
