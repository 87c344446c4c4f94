import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { loadServerSecrets } from "../../src/settings.js";
import { createTestDatabase, DATABASE_KINDS, type TestDatabase } from "../../src/testing.js";

describe.each(DATABASE_KINDS)("server secrets on %s", (kind) => {
  let tdb: TestDatabase;
  beforeAll(async () => {
    tdb = await createTestDatabase(kind, inject("postgresUrl"));
  });
  afterAll(() => tdb?.dispose());

  it("generates each secret once and returns the same ones on every later load", async () => {
    const first = await loadServerSecrets(tdb.database.db);
    expect(first.jwtSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(first.fingerprintKey).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(first.jwtSecret).not.toBe(first.fingerprintKey);
    const [a, b] = await Promise.all([loadServerSecrets(tdb.database.db), loadServerSecrets(tdb.database.db)]);
    expect(a).toEqual(first);
    expect(b).toEqual(first);
  });

  it("prefers a given secret over the stored one without changing what is stored", async () => {
    const stored = await loadServerSecrets(tdb.database.db);
    const given = "given-jwt-secret-".padEnd(40, "g");
    expect(await loadServerSecrets(tdb.database.db, { jwtSecret: given })).toEqual({ jwtSecret: given, fingerprintKey: stored.fingerprintKey });
    expect(await loadServerSecrets(tdb.database.db)).toEqual(stored);
  });
});
