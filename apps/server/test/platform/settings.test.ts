import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { eq } from "drizzle-orm";
import { serverSettings } from "../../src/db/schema.js";
import { loadServerSecrets } from "../../src/settings.js";
import { createTestDatabase, DATABASE_KINDS, type TestDatabase } from "../../src/testing.js";

describe.each(DATABASE_KINDS)("server secrets on %s", (kind) => {
  let tdb: TestDatabase;
  beforeAll(async () => {
    tdb = await createTestDatabase(kind, inject("postgresUrl"));
  });
  afterAll(() => tdb?.dispose());

  it("generates the JWT secret once and returns the same one on every later load", async () => {
    const first = await loadServerSecrets(tdb.database.db);
    expect(first).toEqual({ jwtSecret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
    const [a, b] = await Promise.all([loadServerSecrets(tdb.database.db), loadServerSecrets(tdb.database.db)]);
    expect(a).toEqual(first);
    expect(b).toEqual(first);
  });

  it("prefers a given secret over the stored one without changing what is stored", async () => {
    const stored = await loadServerSecrets(tdb.database.db);
    const given = "given-jwt-secret-".padEnd(40, "g");
    expect(await loadServerSecrets(tdb.database.db, { jwtSecret: given })).toEqual({ jwtSecret: given });
    expect(await loadServerSecrets(tdb.database.db)).toEqual(stored);
  });

  it("refuses a stored key shorter than 32 characters (a hand edit or an older import) unless JWT_SECRET is given", async () => {
    const stored = await loadServerSecrets(tdb.database.db);
    try {
      await tdb.database.db.update(serverSettings).set({ value: "short" }).where(eq(serverSettings.key, "jwt_secret"));
      await expect(loadServerSecrets(tdb.database.db)).rejects.toThrow(
        "the JWT signing key stored in the database (server_settings jwt_secret) is 5 characters, shorter than 32: set JWT_SECRET",
      );
      const given = "given-jwt-secret-".padEnd(40, "g");
      expect(await loadServerSecrets(tdb.database.db, { jwtSecret: given })).toEqual({ jwtSecret: given });
    } finally {
      await tdb.database.db.update(serverSettings).set({ value: stored.jwtSecret }).where(eq(serverSettings.key, "jwt_secret"));
    }
  });
});
