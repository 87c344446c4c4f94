/**
 * A version's author (`versions.author_id`, and a conflict record's) is a foreign key to
 * `principals` (migration 0000, ON DELETE SET NULL), on PostgreSQL and on the embedded database:
 * a version cannot name a principal that does not exist (an import of such a row is refused as
 * `backup_row_refused`), and removing a principal keeps its history, with the author's name, and
 * only forgets the link. (No command removes a principal today: `member remove` ends a membership.)
 */
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { DATABASE_KINDS, rowsOf } from "../../src/testing.js";
import { sqlState, useTestDatabase } from "../support/database.js";

describe.each(DATABASE_KINDS)("the author of a version on %s", (kind) => {
  const testDatabase = useTestDatabase(kind);

  it("is a foreign key to principals, set to null when the principal is deleted, on versions and conflicts", async () => {
    const keys = await rowsOf<{ table: string; refers: string; onDelete: string }>(
      testDatabase().database,
      sql`SELECT conrelid::regclass::text AS "table", confrelid::regclass::text AS refers, confdeltype::text AS "onDelete"
          FROM pg_constraint WHERE contype = 'f' AND conname IN ('versions_author_id_principals_id_fk', 'conflicts_author_id_principals_id_fk')
          ORDER BY 1`,
    );
    expect(keys).toEqual([
      { table: "conflicts", refers: "principals", onDelete: "n" },
      { table: "versions", refers: "principals", onDelete: "n" },
    ]);
  });

  it("refuses a version naming a principal that does not exist, and keeps a deleted principal's versions with the author's name", async () => {
    const db = testDatabase().database.db;
    const [team] = await rowsOf<{ id: string }>(testDatabase().database, sql`INSERT INTO teams (name) VALUES ('authors') RETURNING id`);
    const [ns] = await rowsOf<{ id: string }>(testDatabase().database, sql`INSERT INTO namespaces (team_id, name, cursor) VALUES (${team!.id}, 'acme/authors', 2) RETURNING id`);
    const [ann] = await rowsOf<{ id: string }>(testDatabase().database, sql`INSERT INTO principals (name) VALUES ('ann-author') RETURNING id`);
    const version = (cursor: number, author: string) =>
      sql`INSERT INTO versions (namespace_id, path, version, kind, content, sha256, size_bytes, author_id, author_name, cursor)
          VALUES (${ns!.id}, 'team/a.md', ${cursor}, 'write', 'a', 'x', 1, ${author}, 'ann-author', ${cursor})`;

    const refused = await db.execute(version(1, "00000000-0000-4000-8000-000000000000")).then(
      () => null,
      (e: unknown) => e,
    );
    expect(sqlState(refused)).toBe("23503");

    await db.execute(version(1, ann!.id));
    await db.execute(version(2, ann!.id));
    await db.execute(sql`DELETE FROM principals WHERE id = ${ann!.id}`);
    const kept = await rowsOf<{ version: number; authorId: string | null; authorName: string }>(
      testDatabase().database,
      sql`SELECT version, author_id AS "authorId", author_name AS "authorName" FROM versions WHERE namespace_id = ${ns!.id} ORDER BY version`,
    );
    expect(kept).toEqual([
      { version: 1, authorId: null, authorName: "ann-author" },
      { version: 2, authorId: null, authorName: "ann-author" },
    ]);
  });
});
