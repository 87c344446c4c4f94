/** A test database per `describe` block, and the SQLSTATE of a statement it refused. */
import { afterAll, beforeAll, inject } from "vitest";
import { createTestDatabase, type DatabaseKind, type TestDatabase } from "../../src/testing.js";

/** The SQLSTATE of a failed statement (drizzle wraps the driver's error as `cause`). */
export function sqlState(e: unknown): unknown {
  return ((e as { cause?: { code?: unknown } }).cause ?? (e as { code?: unknown })).code;
}

/** A fresh migrated database of `kind` for the enclosing `describe`, disposed after it; call the result inside a test. */
export function useTestDatabase(kind: DatabaseKind): () => TestDatabase {
  let tdb: TestDatabase | undefined;
  beforeAll(async () => {
    tdb = await createTestDatabase(kind, inject("postgresUrl"));
  });
  afterAll(async () => {
    await tdb?.dispose();
  });
  return () => tdb!;
}
