/**
 * TestDatabasePool: a database handed out again is the same one, emptied back to the migrated
 * template's state (append-only audit events included, sequences restarted), on both kinds; one
 * that cannot be emptied (closed by its test) is not handed out again. Real PostgreSQL and PGlite.
 */
import { sql } from "drizzle-orm";
import { afterAll, describe, expect, inject, it } from "vitest";
import { issueToken } from "./admin/tokens.js";
import { DATABASE_KINDS, dumpAllRows, rowsOf, TestDatabasePool } from "./testing.js";

const SECRET = "pool-test-".padEnd(40, "p");

describe.each(DATABASE_KINDS)("TestDatabasePool on %s", (kind) => {
  const pool = new TestDatabasePool(inject("postgresUrl"));
  afterAll(() => pool.close());

  // The first take of a kind makes the database: PGlite's start alone took 50 s at load 24.
  it("hands a returned database out again, emptied, with its sequences restarted", { timeout: 180_000 }, async () => {
    const first = await pool.take(kind);
    const audit = (database: typeof first.database) => database.db.execute(sql`INSERT INTO audit_events (kind, note) VALUES ('server_started', 'pool test')`);
    await issueToken(first.database.db, SECRET, { teamName: "acme", userName: "alice", role: "admin" });
    await audit(first.database);
    await audit(first.database);
    const ids = async (database: typeof first.database) =>
      (await rowsOf<{ id: string }>(database, sql`SELECT id FROM audit_events ORDER BY id`)).map((r) => Number(r.id));
    expect((await ids(first.database)).length).toBeGreaterThan(1);
    await first.dispose();

    const second = await pool.take(kind);
    expect(second.database).toBe(first.database);
    expect((await dumpAllRows(second.database)).trim()).toBe("");
    await issueToken(second.database.db, SECRET, { teamName: "acme", userName: "alice", role: "admin" });
    await audit(second.database);
    expect(await ids(second.database)).toEqual([1]);
    // audit_events stays append-only for the tests themselves.
    await expect(second.database.db.execute(sql`DELETE FROM audit_events`)).rejects.toThrow();
    await second.dispose();
  });

  it("does not hand out again a database its test closed", async () => {
    const used = await pool.take(kind);
    await used.database.close();
    await used.dispose();
    const next = await pool.take(kind);
    expect(next.database).not.toBe(used.database);
    expect((await dumpAllRows(next.database)).trim()).toBe("");
    await next.dispose();
  });
});
