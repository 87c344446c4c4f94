import { sql } from "drizzle-orm";
import { describe, expect, inject, it, onTestFinished } from "vitest";
import { createTestDatabase, DATABASE_KINDS, rowsOf } from "../testing.js";

describe.each(DATABASE_KINDS)("text read back from %s", (kind) => {
  it("keeps a leading U+FEFF, also after a failed query (PGlite makes a new protocol reader then)", async () => {
    const tdb = await createTestDatabase(kind, inject("postgresUrl"));
    onTestFinished(() => tdb.dispose());
    const values = ["\uFEFFhello\n", "\uFEFF", "\uFEFF\uFEFFtwo", "a\uFEFFb"];
    const read = async () => {
      const out: string[] = [];
      for (const value of values) out.push(...(await rowsOf<{ v: string }>(tdb.database, sql`SELECT ${value}::text AS v`)).map((r) => r.v));
      return out;
    };
    expect(await read()).toEqual(values);
    await expect(tdb.database.db.execute(sql`SELECT 1 / 0`)).rejects.toMatchObject({ cause: expect.objectContaining({ code: "22012" }) }); // division_by_zero
    expect(await read()).toEqual(values);
  });
});
