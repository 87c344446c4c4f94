import { sql, type SQL } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createTestDatabase, DATABASE_KINDS, type TestDatabase } from "../testing.js";
import { databaseError, isStorageFull, refusalForDatabaseError, refusalForUnstorableText, sqlState } from "./database-errors.js";

describe.each(DATABASE_KINDS)("sqlState on %s", (kind) => {
  let test: TestDatabase;
  beforeAll(async () => {
    test = await createTestDatabase(kind, inject("postgresUrl"));
  });
  afterAll(() => test?.dispose());

  const failure = (statement: string | SQL) => test.database.db.execute(statement).catch((e: unknown) => e);

  it("finds the SQLSTATE of a failed statement under drizzle's wrapper and under further wrappers", async () => {
    const missing = await failure("SELECT * FROM no_such_table");
    const wrapped = new Error("import failed", { cause: new Error("batch failed", { cause: missing }) });
    expect([sqlState(missing), sqlState(wrapped), sqlState(new Error("no database here")), sqlState("42P01")]).toEqual(["42P01", "42P01", null, null]);
  });

  it("gives the refused row's constraint with the SQLSTATE, and a NUL in text as a 400 refusal", async () => {
    await test.database.db.execute("CREATE TABLE t (id int PRIMARY KEY CONSTRAINT t_id_positive CHECK (id > 0), note text)");
    const refused = await failure("INSERT INTO t VALUES (0, 'x')");
    expect({ code: databaseError(refused)?.code, constraint: databaseError(refused)?.constraint }).toEqual({ code: "23514", constraint: "t_id_positive" });
    const nul = await failure(sql`INSERT INTO t VALUES (1, ${"a\u0000b"})`);
    expect([sqlState(nul), refusalForUnstorableText(nul)?.code, refusalForUnstorableText(refused)]).toEqual(["22021", "invalid_request", null]);
  });
});

describe("a full disk, on either database", () => {
  // PostgreSQL's and PGlite's error for a full disk (SQLSTATE 53100, PGlite's text seen on a tmpfs), as drizzle wraps it.
  const wrapped = (cause: object) => Object.assign(new Error("Failed query: insert into entries ... params: ..."), { cause });
  it.each([
    ["PostgreSQL 53100", wrapped({ code: "53100", message: 'could not extend file "base/16384/16459": No space left on device' })],
    ["PGlite 53100", wrapped({ code: "53100", message: 'could not extend file "base/5/16459": No space left on device' })],
    ["an fs errno", Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" })],
  ])("%s is 503 storage_full with a 30 s Retry-After, not database_busy", (_name, err) => {
    expect(isStorageFull(err)).toBe(true);
    const refusal = refusalForDatabaseError(err);
    expect({ code: refusal?.code, details: refusal?.details }).toEqual({ code: "storage_full", details: { retryAfterMs: 30_000 } });
  });
  it("other class 53 errors stay database_busy", () => {
    expect(refusalForDatabaseError(wrapped({ code: "53200", message: "out of memory" }))?.code).toBe("database_busy");
    expect(isStorageFull(wrapped({ code: "23505", message: "duplicate key" }))).toBe(false);
  });
});
