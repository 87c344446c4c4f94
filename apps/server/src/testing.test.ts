/**
 * The test-database templates of other migrations do not pile up (one per migrations version):
 * whoever makes a new template removes those made over an hour ago, leaving alone the current one,
 * recent ones (another checkout's run in progress) and any in use right now. Real files, a real
 * PostgreSQL server (the databases here have made-up hashes, so no real template is touched).
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, readdir, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, describe, expect, inject, it } from "vitest";
import { createTestDatabase, dropStalePostgresTemplates, removeStalePgliteTemplates, templateNames } from "./testing.js";

const hash = () => randomBytes(12).toString("hex");
const twoHoursAgo = () => new Date(Date.now() - 2 * 60 * 60 * 1000);

describe("stale PGlite template tarballs", () => {
  it("deletes other migrations' tarballs and partial writes older than an hour, keeps recent ones and this checkout's", async () => {
    const dir = await mkdtemp(join(tmpdir(), "teammem-templates-"));
    try {
      const current = (await templateNames()).pglite;
      const [old, oldPartial, recent] = [hash(), hash(), hash()];
      const names = {
        old: `teammem-pglite-template-${old}.tar.gz`,
        oldPartial: `teammem-pglite-template-${oldPartial}.tar.gz.${randomBytes(6).toString("hex")}.partial`,
        recent: `teammem-pglite-template-${recent}.tar.gz`,
        other: "someone-elses-file.tar.gz",
      };
      for (const name of [...Object.values(names), current]) await writeFile(join(dir, name), "x");
      for (const name of [names.old, names.oldPartial, names.other, current]) await utimes(join(dir, name), twoHoursAgo(), twoHoursAgo());
      expect(await removeStalePgliteTemplates(dir)).toEqual([names.old, names.oldPartial].sort());
      expect((await readdir(dir)).sort()).toEqual([names.recent, names.other, current].sort());
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("stale PostgreSQL template databases", () => {
  const serverUrl = inject("postgresUrl");
  const made: string[] = [];
  const admin = async <T>(fn: (c: pg.Client) => Promise<T>) => {
    const c = new pg.Client({ connectionString: serverUrl });
    await c.connect();
    try {
      return await fn(c);
    } finally {
      await c.end();
    }
  };
  const template = (builtAt: Date | null) =>
    admin(async (c) => {
      const name = `teammem_tpl_${hash()}`;
      await c.query(`CREATE DATABASE ${name}`);
      made.push(name);
      if (builtAt) await c.query(`COMMENT ON DATABASE ${name} IS 'teammem test template built at ${builtAt.toISOString()}'`);
      return name;
    });
  const existing = () => admin(async (c) => (await c.query<{ datname: string }>("SELECT datname FROM pg_database")).rows.map((r) => r.datname));
  afterAll(() => admin(async (c) => void (await Promise.all(made.map((n) => c.query(`DROP DATABASE IF EXISTS ${n} WITH (FORCE)`))))));

  it("drops other migrations' templates built over an hour ago, keeps recent ones, this checkout's and one in use", async () => {
    await (await createTestDatabase("postgres", serverUrl)).dispose(); // this checkout's template exists
    // `fresh` says nothing of when it was built: its folder's age tells (made just now).
    const [old, fresh, recent, inUse] = [await template(twoHoursAgo()), await template(null), await template(new Date()), await template(twoHoursAgo())];
    const user = new pg.Client({ connectionString: Object.assign(new URL(serverUrl), { pathname: `/${inUse}` }).toString() });
    await user.connect();
    try {
      const dropped = await dropStalePostgresTemplates(serverUrl);
      expect(dropped.filter((n) => made.includes(n))).toEqual([old]);
      const left = await existing();
      expect([old, fresh, recent, inUse, (await templateNames()).postgres].map((n) => left.includes(n))).toEqual([false, true, true, true, true]);
    } finally {
      await user.end();
    }
  });
});
