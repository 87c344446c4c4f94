/**
 * The audit log is append-only in the database itself (issue 11): UPDATE, DELETE and TRUNCATE of
 * audit rows are refused by a trigger, on PostgreSQL and PGlite alike; only the retention job's
 * function `teammem_purge_audit_events(cutoff)` deletes, and its permission ends with it.
 */
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createTestDatabase, DATABASE_KINDS, rowsOf, type TestDatabase } from "../../src/testing.js";

/** The database's own message of a refused statement, or null when it went through. */
async function refusal(run: Promise<unknown>): Promise<string | null> {
  try {
    await run;
    return null;
  } catch (err) {
    const e = err as { cause?: { message?: string }; message: string };
    return e.cause?.message ?? e.message;
  }
}

describe.each(DATABASE_KINDS)("append-only audit log on %s", (kind) => {
  let tdb: TestDatabase;
  const exec = (q: ReturnType<typeof sql>) => tdb.database.db.execute(q);
  const kinds = async () => (await rowsOf<{ kind: string }>(tdb.database, sql`SELECT kind FROM audit_events ORDER BY id`)).map((r) => r.kind);

  beforeAll(async () => {
    tdb = await createTestDatabase(kind, inject("postgresUrl"));
    await exec(sql`INSERT INTO teams (name) VALUES ('acme')`);
    await exec(sql`INSERT INTO audit_events (team_id, kind, actor_name, created_at)
      SELECT id, 'token_issued', 'old', now() - interval '400 days' FROM teams`);
    await exec(sql`INSERT INTO audit_events (team_id, kind, actor_name) SELECT id, 'token_revoked', 'new' FROM teams`);
  });
  afterAll(() => tdb?.dispose());

  it.each([
    ["UPDATE", sql`UPDATE audit_events SET actor_name = 'mallory'`],
    ["DELETE", sql`DELETE FROM audit_events`],
    ["TRUNCATE", sql`TRUNCATE audit_events`],
  ])("refuses %s of audit rows and leaves them intact", async (op, statement) => {
    expect(await refusal(exec(statement))).toBe(`audit_events is append-only: ${op} refused`);
    expect(await kinds()).toEqual(["token_issued", "token_revoked"]);
  });

  it("refuses a delete even right after the purge function ran in the same transaction", async () => {
    const attempt = tdb.database.db.transaction(async (tx) => {
      await tx.execute(sql`SELECT * FROM teammem_purge_audit_events(now() - interval '1000 days')`);
      await tx.execute(sql`DELETE FROM audit_events`);
    });
    expect(await refusal(attempt)).toBe("audit_events is append-only: DELETE refused");
    expect(await kinds()).toEqual(["token_issued", "token_revoked"]);
  });

  it("deletes through the retention function only what is older than the cutoff, counted per team", async () => {
    const purged = await rowsOf<{ purged: string | number }>(tdb.database, sql`SELECT purged FROM teammem_purge_audit_events(now() - interval '365 days')`);
    expect(purged.map((p) => Number(p.purged))).toEqual([1]);
    expect(await kinds()).toEqual(["token_revoked"]);
  });
});
