/** This test file's databases (a pool), a test database per `describe` block, and the SQLSTATE of a statement it refused. */
import { afterAll, beforeAll, inject } from "vitest";
import { TestDatabasePool, type DatabaseKind, type TestDatabase } from "../../src/testing.js";

/** The SQLSTATE of a failed statement (drizzle wraps the driver's error as `cause`). */
export function sqlState(e: unknown): unknown {
  return ((e as { cause?: { code?: unknown } }).cause ?? (e as { code?: unknown })).code;
}

/**
 * The databases of this test file: a database a test disposed of is emptied (`resetTestDatabase`:
 * every public table truncated, sequences restarted) and handed to the file's next
 * {@link takeTestDatabase} of its kind, instead of a new one (~2 s of CPU per PGlite, a CREATE and
 * a DROP DATABASE per PostgreSQL). Vitest evaluates this module again for each test file, so the
 * pool is the file's; its afterAll drops what is left.
 */
const databases = new TestDatabasePool(inject("postgresUrl"));
afterAll(() => databases.close());

/**
 * An empty migrated database of `kind`: a new one, or one an earlier test of this file disposed of
 * (emptied). `dispose()` gives it back. Not for a test whose subject is a new cluster or database
 * (system identifier, database oid, backups of a whole database): those use `createTestDatabase`.
 */
export function takeTestDatabase(kind: DatabaseKind): Promise<TestDatabase> {
  return databases.take(kind);
}

/** An empty migrated database of `kind` for the enclosing `describe` (see {@link takeTestDatabase}), given back after it; call the result inside a test. */
export function useTestDatabase(kind: DatabaseKind): () => TestDatabase {
  let tdb: TestDatabase | undefined;
  beforeAll(async () => {
    tdb = await takeTestDatabase(kind);
  });
  afterAll(async () => {
    await tdb?.dispose();
  });
  return () => tdb!;
}
