/**
 * A version's author (`versions.author_id`, and a conflict record's) names a principal with no
 * foreign key since migration 0016 (issue 12, the write path's cost): the key's check locked the
 * author's principal row (KEY SHARE) at every version inserted, and every writer of one user shares
 * that row. What the key's ON DELETE SET NULL gave is kept, on PostgreSQL and on the embedded
 * database: deleting a principal keeps its history, with the author's name, and only forgets the
 * link (trigger `principals_forget_authored`); an import of a version or conflict naming a principal
 * the backup does not hold reads as no author. (No command removes a principal today: `member
 * remove` ends a membership.)
 */
import { randomUUID } from "node:crypto";
import { Readable } from "node:stream";
import { sql } from "drizzle-orm";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { exportBackup } from "../../src/backup/export-backup.js";
import { importBackup } from "../../src/backup/import-backup.js";
import { readLines } from "../../src/backup/read-lines.js";
import { DATABASE_KINDS, rowsOf } from "../../src/testing.js";
import { takeTestDatabase, useTestDatabase } from "../support/database.js";
import { bearer, startTestServer } from "./support.js";

type Row = Record<string, unknown>;

describe.each(DATABASE_KINDS)("the author of a version on %s", (kind) => {
  const testDatabase = useTestDatabase(kind);

  it("has no foreign key on versions and conflicts, and a trigger on principals nulls it", async () => {
    const keys = await rowsOf<{ table: string; refers: string }>(
      testDatabase().database,
      sql`SELECT conrelid::regclass::text AS "table", confrelid::regclass::text AS refers FROM pg_constraint
          WHERE contype = 'f' AND conrelid::regclass::text IN ('versions', 'conflicts') ORDER BY 1, 2`,
    );
    expect(keys).toEqual([
      { table: "conflicts", refers: "namespaces" },
      { table: "versions", refers: "namespaces" },
    ]);
    const triggers = await rowsOf<{ name: string }>(testDatabase().database, sql`SELECT tgname AS name FROM pg_trigger WHERE tgrelid = 'principals'::regclass AND NOT tgisinternal`);
    expect(triggers).toEqual([{ name: "principals_forget_authored" }]);
  });

  it("deleting principals nulls the author of their versions and conflicts, keeping the author's name and everyone else's link", async () => {
    const database = testDatabase().database;
    const [team] = await rowsOf<{ id: string }>(database, sql`INSERT INTO teams (name) VALUES ('authors') RETURNING id`);
    const [ns] = await rowsOf<{ id: string }>(database, sql`INSERT INTO namespaces (team_id, name, cursor) VALUES (${team!.id}, 'acme/authors', 4) RETURNING id`);
    const [ann] = await rowsOf<{ id: string }>(database, sql`INSERT INTO principals (name) VALUES ('ann-author') RETURNING id`);
    const [bob] = await rowsOf<{ id: string }>(database, sql`INSERT INTO principals (name) VALUES ('bob-author') RETURNING id`);
    const [cyd] = await rowsOf<{ id: string }>(database, sql`INSERT INTO principals (name) VALUES ('cyd-author') RETURNING id`);
    const version = (n: number, author: { id: string }, name: string) =>
      sql`INSERT INTO versions (namespace_id, path, version, kind, content, sha256, size_bytes, author_id, author_name, cursor)
          VALUES (${ns!.id}, 'team/a.md', ${n}, 'write', 'a', 'x', 1, ${author.id}, ${name}, ${n})`;
    await database.db.execute(version(1, ann!, "ann-author"));
    await database.db.execute(version(2, bob!, "bob-author"));
    await database.db.execute(version(3, cyd!, "cyd-author"));
    await database.db.execute(sql`INSERT INTO conflicts (namespace_id, path, base_version, head_version, content, author_id, author_name, op_id, cursor)
                                  VALUES (${ns!.id}, 'team/a.md', 1, 3, 'b', ${ann!.id}, 'ann-author', 'op-1', 4)`);

    await database.db.execute(sql`DELETE FROM principals WHERE id IN (${ann!.id}, ${bob!.id})`);

    const kept = await rowsOf<{ version: number; authorId: string | null; authorName: string }>(
      database,
      sql`SELECT version, author_id AS "authorId", author_name AS "authorName" FROM versions WHERE namespace_id = ${ns!.id} ORDER BY version`,
    );
    expect(kept).toEqual([
      { version: 1, authorId: null, authorName: "ann-author" },
      { version: 2, authorId: null, authorName: "bob-author" },
      { version: 3, authorId: cyd!.id, authorName: "cyd-author" },
    ]);
    const conflict = await rowsOf(database, sql`SELECT author_id AS "authorId", author_name AS "authorName" FROM conflicts WHERE namespace_id = ${ns!.id}`);
    expect(conflict).toEqual([{ authorId: null, authorName: "ann-author" }]);
  });
});

describe("a write and its author's principal row (PostgreSQL)", () => {
  it("a fast-forward, a new path and a conflict commit while another transaction holds the author's principal row FOR UPDATE", async () => {
    const server = await startTestServer("postgres", { limits: { rateLimitMax: 0 } });
    const holder = new pg.Client({ connectionString: server.tdb.url });
    await holder.connect();
    try {
      const { token } = await server.token("acme", "ada", "member");
      const batch = async (operations: object[]) => {
        const res = await server.app.inject({
          method: "POST",
          url: "/v1/namespaces/acme-web/batch",
          headers: bearer(token),
          payload: { operations: operations.map((o) => ({ opId: randomUUID(), ...o })) },
        });
        expect(res.statusCode, res.body).toBe(200);
        return (res.json() as { results: { status: string }[] }).results.map((r) => r.status);
      };
      expect(await batch([{ path: "a.md", baseVersion: 0, content: "one\n" }])).toEqual(["applied"]);

      await holder.query("BEGIN");
      await holder.query("SELECT 1 FROM principals WHERE name = 'ada' FOR UPDATE");
      const writes = (async () => [
        await batch([{ path: "a.md", baseVersion: 1, content: "two\n" }]), // the fast-forward function
        await batch([{ path: "b.md", baseVersion: 0, content: "bee\n" }]), // the general path: a new entry
        await batch([{ path: "a.md", baseVersion: 1, content: "three\n" }]), // a conflict record
      ])();
      // Done, or stuck: a backend of this database waiting for a lock (the row lock held above).
      const waiting = async (): Promise<"waiting"> => {
        for (;;) {
          const { rows } = await holder.query(
            "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()",
          );
          if ((rows[0] as { n: number }).n > 0) return "waiting";
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      };
      const outcome = await Promise.race([writes, waiting()]);
      await holder.query("ROLLBACK");
      expect(outcome).toEqual([["applied"], ["applied"], ["conflict"]]);
    } finally {
      await holder.end();
      await server.close();
    }
  });
});

describe("an import of versions and conflicts whose author the backup does not hold", () => {
  it("reads them as no author, keeping the author's name (as deleting the principal would)", async () => {
    const server = await startTestServer("postgres", { limits: { rateLimitMax: 0 } });
    let text = "";
    try {
      const { token } = await server.token("acme", "ada", "member");
      const batch = (operations: object[]) =>
        server.app.inject({ method: "POST", url: "/v1/namespaces/acme-web/batch", headers: bearer(token), payload: { operations: operations.map((o) => ({ opId: randomUUID(), ...o })) } });
      await batch([{ path: "a.md", baseVersion: 0, content: "one\n" }]);
      await batch([{ path: "a.md", baseVersion: 1, content: "two\n" }]);
      await batch([{ path: "a.md", baseVersion: 1, content: "three\n" }]);
      await exportBackup(server.tdb.database.db, (chunk) => void (text += chunk));
    } finally {
      await server.close();
    }
    // The authors' ids replaced by one no principal of the backup has (a write that raced its author's deletion).
    const gone = randomUUID();
    const lines = text
      .split("\n")
      .filter(Boolean)
      .map((line) => {
        const parsed = JSON.parse(line) as { table?: string; row?: Row };
        if (parsed.table !== "versions" && parsed.table !== "conflicts") return line;
        expect(parsed.row!["author_id"]).toEqual(expect.any(String));
        return JSON.stringify({ ...parsed, row: { ...parsed.row, author_id: gone } });
      });
    const target = await takeTestDatabase("postgres");
    try {
      await importBackup(target.database.db, readLines(Readable.from([lines.join("\n") + "\n"])), { source: "test" });
      const authors = await rowsOf(
        target.database,
        sql`SELECT 'versions' AS "table", author_id AS "authorId", author_name AS "authorName" FROM versions
            UNION ALL SELECT 'conflicts', author_id, author_name FROM conflicts ORDER BY 1`,
      );
      expect(authors).toEqual([
        { table: "conflicts", authorId: null, authorName: "ada" },
        { table: "versions", authorId: null, authorName: "ada" },
        { table: "versions", authorId: null, authorName: "ada" },
      ]);
    } finally {
      await target.dispose();
    }
  });
});
