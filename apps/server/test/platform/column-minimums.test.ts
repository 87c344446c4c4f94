/**
 * Versions, cursors and sizes cannot be impossible values in the database itself (CHECK
 * constraints of migration 0010, from COLUMN_MINIMUMS in db/schema.ts): an import or a bug that
 * tried would be refused with SQLSTATE 23514, on PostgreSQL and on the embedded database.
 */
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { COLUMN_MINIMUMS } from "../../src/db/schema.js";
import { DATABASE_KINDS } from "../../src/testing.js";
import { sqlState, useTestDatabase } from "../support/database.js";

describe.each(DATABASE_KINDS)("column minimums on %s", (kind) => {
  const testDatabase = useTestDatabase(kind);

  it("has one CHECK constraint per bounded column, and refuses a negative namespace cursor", async () => {
    const db = testDatabase().database.db;
    const rows = (await db.execute(sql`SELECT conname FROM pg_constraint WHERE contype = 'c' AND conname LIKE '%\\_min' ORDER BY conname`)) as unknown as {
      rows: { conname: string }[];
    };
    const expected = Object.entries(COLUMN_MINIMUMS).flatMap(([table, columns]) => Object.keys(columns).map((c) => `${table}_${c}_min`));
    expect(rows.rows.map((r) => r.conname).sort()).toEqual(expected.sort());
    await db.execute(sql`INSERT INTO teams (name) VALUES ('minimums')`);
    const team = ((await db.execute(sql`SELECT id FROM teams WHERE name = 'minimums'`)) as unknown as { rows: { id: string }[] }).rows[0]!.id;
    const refused = await db.execute(sql`INSERT INTO namespaces (team_id, name, cursor) VALUES (${team}, 'negative', -1)`).then(
      () => null,
      (e: unknown) => e,
    );
    expect(sqlState(refused)).toBe("23514");
  });
});
