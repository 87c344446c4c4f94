import { afterEach, describe, expect, inject, it } from "vitest";
import { openDatabase, type Database } from "../../src/db/database.js";
import { createPostgresDatabase, rowsOf } from "../../src/testing.js";
import { sql } from "drizzle-orm";

describe("migrations on a fresh PostgreSQL database", () => {
  const opened: Database[] = [];
  let drop: (() => Promise<void>) | undefined;
  afterEach(async () => {
    for (const d of opened.splice(0)) await d.close();
    await drop?.();
  });

  it("succeed when several processes migrate at the same moment (serialised by an advisory lock)", async () => {
    const fresh = await createPostgresDatabase(inject("postgresUrl"));
    drop = fresh.drop;
    const databases = await Promise.all([1, 2, 3].map(() => openDatabase({ kind: "postgres", url: fresh.url })));
    opened.push(...databases);
    await Promise.all(databases.map((d) => d.migrate()));
    const applied = await rowsOf<{ n: number }>(databases[0]!, sql`SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations`);
    const files = (await import("node:fs")).readdirSync(new URL("../../../../migrations/", import.meta.url)).filter((f) => f.endsWith(".sql"));
    expect(applied[0]!.n).toBe(files.length);
  });
});
