/**
 * `@teammem/server/testing`: fresh, migrated databases for tests of the server and of whatever runs
 * against it. One PostgreSQL database per call (created on a PostgreSQL server the caller names,
 * e.g. `inject("postgresUrl")` under vitest) or one in-memory PGlite, dropped/closed by `dispose`.
 * Reads no environment and imports no test runner.
 *
 * Both kinds start from a migrated template made once per set of migrations, instead of running
 * initdb (PGlite, ~4x the cost of loading a template) or every migration (PostgreSQL) per database:
 * - PGlite: a gzip tarball of a migrated in-memory database (`dumpDataDir`) in os.tmpdir(), named by
 *   a hash of migrations/ and the PGlite version, written atomically, loaded with `loadDataDir`.
 *   Every database loaded from it has the template's system identifier (a test that needs a new
 *   cluster opens one with `openDatabase({ kind: "pglite", dataDir: "memory://" })`).
 * - PostgreSQL: a database `teammem_tpl_<hash>` on the server, built under an advisory lock by the
 *   first caller and kept (it is small), cloned with `CREATE DATABASE ... TEMPLATE`.
 * Whoever makes a new template removes those of other hashes made over {@link STALE_TEMPLATE_MS}
 * ago (older migrations: they would pile up, one per version), skipping any in use right now; a
 * process that still wanted a removed one builds it again.
 */
import { createHash, randomBytes } from "node:crypto";
import { readdir, readFile, rename, stat, unlink, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { sql, type SQL } from "drizzle-orm";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import pg from "pg";
import { pathFoldKey } from "@teammem/protocol";
import { scan } from "@teammem/scanner";
import { MIGRATIONS_DIR, openDatabase, type Database } from "./db/database.js";
import { sqlState } from "./errors/database-errors.js";

export type DatabaseKind = "postgres" | "pglite";
/** Every kind the server supports; `describe.each(DATABASE_KINDS)` runs a suite on each. */
export const DATABASE_KINDS: readonly DatabaseKind[] = ["postgres", "pglite"];

export interface TestDatabase {
  readonly database: Database;
  /** Connection URL (postgres only), e.g. for a server process started by the test. */
  readonly url?: string;
  dispose(): Promise<void>;
}

/** A database of its own on a PostgreSQL server; `drop` removes it. */
export interface PostgresTestDatabase {
  readonly url: string;
  drop(): Promise<void>;
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = "/" + name;
  return u.toString();
}

async function admin<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * Creates a database (empty, not migrated, unless copied from `template`) on the PostgreSQL server at `serverUrl`, as a user
 * allowed to CREATE DATABASE, e.g. `postgres://postgres@127.0.0.1:5432/postgres`; a copy of the
 * database `template` when given (nobody may be connected to it).
 * @throws Error when `serverUrl` is empty (no PostgreSQL server was found for the tests).
 */
export async function createPostgresDatabase(serverUrl: string, template?: string): Promise<PostgresTestDatabase> {
  if (!serverUrl)
    throw new Error(
      "No PostgreSQL server for tests: set TEST_DATABASE_URL to a server the tests may create databases on " +
        "(e.g. postgres://postgres@127.0.0.1:5432/postgres), or run Docker for testcontainers.",
    );
  const name = "teammem_test_" + randomBytes(6).toString("hex");
  await admin(serverUrl, (c) => c.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ""}`));
  return {
    url: withDatabase(serverUrl, name),
    drop: () =>
      admin(serverUrl, async (c) => {
        // Let closing pools finish their goodbyes first: a forced drop would hand still-open
        // connections a FATAL 57P01 that surfaces as an unhandled error in the test run.
        for (let i = 0; i < 50; i++) {
          const { rows } = await c.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1", [name]);
          if (rows[0].n === 0) break;
          await new Promise((r) => setTimeout(r, 100));
        }
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      }),
  };
}

/** Key of the advisory lock (on the server's admin database) held while a template is built. */
const TEMPLATE_LOCK_KEY = 0x7ea3_3e4;

/**
 * Age (ms) past which a template of other migrations is removed when a new one is made: one hour,
 * so a run of another checkout (another branch's migrations) in progress keeps its template.
 */
export const STALE_TEMPLATE_MS = 60 * 60 * 1000;
const PGLITE_TEMPLATE_PREFIX = "teammem-pglite-template-";
const POSTGRES_TEMPLATE_PREFIX = "teammem_tpl_";
/** The comment a PostgreSQL template is built with: when, so a later cleanup knows its age. */
const BUILT_AT = "teammem test template built at ";

/**
 * Hex sha256 of every file under migrations/ (names and contents) and of the PGlite version: what a
 * template depends on. Changes whenever a migration is added or edited.
 */
async function templateKey(): Promise<string> {
  const hash = createHash("sha256");
  const files = (await readdir(MIGRATIONS_DIR, { recursive: true, withFileTypes: true }))
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .sort();
  for (const f of files) hash.update(f.slice(MIGRATIONS_DIR.length) + "\0").update(await readFile(f)).update("\0");
  const pgliteMain = createRequire(import.meta.url).resolve("@electric-sql/pglite");
  hash.update(await readFile(join(dirname(pgliteMain), "..", "package.json")));
  return hash.digest("hex");
}

/**
 * The migrated PGlite template as a gzip tarball (tens of MB in memory, ~5 MB gzipped): read from
 * os.tmpdir(), or made (initdb + migrate + dump) and written there atomically (two processes that
 * both miss it each write a full file; the last rename wins, both are valid).
 */
async function pgliteTemplate(): Promise<Blob> {
  const path = join(tmpdir(), (await templateNames()).pglite);
  try {
    return new Blob([await readFile(path)]);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  const client = await PGlite.create("memory://");
  let dump: Blob;
  try {
    await migratePglite(drizzlePglite(client), { migrationsFolder: MIGRATIONS_DIR });
    dump = await client.dumpDataDir("gzip");
  } finally {
    await client.close();
  }
  const partial = `${path}.${randomBytes(6).toString("hex")}.partial`;
  await writeFile(partial, Buffer.from(await dump.arrayBuffer()), { mode: 0o600 });
  await rename(partial, path);
  await removeStalePgliteTemplates(tmpdir());
  return dump;
}

/** The names this checkout's templates have: the PGlite tarball's file name (in os.tmpdir()) and the PostgreSQL database's. */
export async function templateNames(): Promise<{ pglite: string; postgres: string }> {
  const key = (await templateKey()).slice(0, 24);
  return { pglite: `${PGLITE_TEMPLATE_PREFIX}${key}.tar.gz`, postgres: POSTGRES_TEMPLATE_PREFIX + key };
}

/**
 * Deletes the PGlite template tarballs in `dir` (and `.partial` files of crashed writes) of other
 * migrations than this checkout's, last written over `olderThanMs` ago. Safe while another process
 * uses one: a reader holding it open keeps reading it, one about to read it finds none and makes
 * it again.
 * @returns the names of the files deleted.
 */
export async function removeStalePgliteTemplates(dir: string, olderThanMs = STALE_TEMPLATE_MS): Promise<string[]> {
  const current = (await templateNames()).pglite;
  const removed: string[] = [];
  for (const name of await readdir(dir)) {
    if (!name.startsWith(PGLITE_TEMPLATE_PREFIX) || name === current || (name.startsWith(current) && name.endsWith(".partial"))) continue;
    try {
      if (Date.now() - (await stat(join(dir, name))).mtimeMs <= olderThanMs) continue;
      await unlink(join(dir, name));
      removed.push(name);
    } catch (err) {
      // Removed by another process's cleanup meanwhile, or not ours to remove (another user's /tmp file).
      if (!["ENOENT", "EPERM", "EACCES"].includes((err as NodeJS.ErrnoException).code ?? "")) throw err;
    }
  }
  return removed.sort();
}

/**
 * Drops the template databases on the PostgreSQL server at `serverUrl` of other migrations than this
 * checkout's (`teammem_tpl_<hash>`, and `..._<random>` left by a crashed build) built over
 * `olderThanMs` ago: when its comment says (set at build), else when its folder's PG_VERSION file
 * was written (superuser or pg_read_server_files only; a template whose age is unknown is kept).
 * One in use right now (being copied, or connected to) is left alone: a plain DROP DATABASE refuses it (55006).
 * @returns the names of the databases dropped.
 */
export async function dropStalePostgresTemplates(serverUrl: string, olderThanMs = STALE_TEMPLATE_MS): Promise<string[]> {
  const current = (await templateNames()).postgres;
  return admin(serverUrl, async (c) => {
    const list = (created: string) =>
      c.query<{ name: string; comment: string | null; created: Date | null }>(
        `SELECT datname AS name, shobj_description(oid, 'pg_database') AS comment, ${created} AS created FROM pg_database WHERE starts_with(datname, $1) ORDER BY datname`,
        [POSTGRES_TEMPLATE_PREFIX],
      );
    const { rows } = await list("(pg_stat_file('base/' || oid || '/PG_VERSION', true)).modification").catch((err: unknown) => {
      if (sqlState(err) !== "42501") throw err; // insufficient_privilege: ages from comments only
      return list("NULL::timestamptz");
    });
    const dropped: string[] = [];
    for (const { name, comment, created } of rows) {
      if (name === current || !/^[a-z0-9_]+$/.test(name)) continue;
      const builtAt = comment?.startsWith(BUILT_AT) ? Date.parse(comment.slice(BUILT_AT.length)) : (created?.getTime() ?? NaN);
      if (Number.isNaN(builtAt) || Date.now() - builtAt <= olderThanMs) continue;
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name}`);
        dropped.push(name);
      } catch (err) {
        if (sqlState(err) !== "55006") throw err; // object_in_use: another process is using it
      }
    }
    return dropped;
  });
}

/**
 * Fills `dataDir` (a folder that does not exist yet or is empty) with the migrated PGlite template,
 * so that the first open of that embedded data folder (e.g. by a `teammem-server --data-dir` process
 * a test starts) finds a migrated cluster instead of running initdb. Its system identifier is the
 * template's, shared with every other seeded folder: only for tests where a new cluster is not the
 * subject. File modes are left to the server, which makes the tree owner-only when it opens it.
 */
export async function seedPgliteDataDir(dataDir: string): Promise<void> {
  const client = await PGlite.create({ dataDir, loadDataDir: await pgliteTemplate() });
  await client.close();
}

/**
 * Name of the migrated template database on the PostgreSQL server at `serverUrl`, built if missing:
 * under an advisory lock (so two workers don't both build it), as a database of a temporary name
 * renamed once migrated (so a crash never leaves a half-migrated template under the real name).
 */
async function postgresTemplate(serverUrl: string): Promise<string> {
  const name = (await templateNames()).postgres;
  const exists = async (c: pg.Client) =>
    (await c.query("SELECT 1 FROM pg_database WHERE datname = $1", [name])).rowCount === 1;
  await admin(serverUrl, async (c) => {
    if (await exists(c)) return;
    await c.query("SELECT pg_advisory_lock($1)", [TEMPLATE_LOCK_KEY]); // released when the session ends
    if (await exists(c)) return;
    const building = `${name}_${randomBytes(4).toString("hex")}`;
    await c.query(`CREATE DATABASE ${building}`);
    await c.query(`COMMENT ON DATABASE ${building} IS '${BUILT_AT}${new Date().toISOString()}'`);
    try {
      const database = await openDatabase({ kind: "postgres", url: withDatabase(serverUrl, building) });
      try {
        await database.migrate();
      } finally {
        await database.close();
      }
      await c.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
    } catch (err) {
      await c.query(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`);
      // Another server session (a run of another checkout) built it in the meantime.
      if ((err as { code?: string }).code !== "42P04") throw err;
      return;
    }
    await dropStalePostgresTemplates(serverUrl);
  });
  return name;
}

/**
 * Opens and migrates a fresh database of `kind`: for "postgres" a new database on the server at
 * `postgresServerUrl` (see {@link createPostgresDatabase}), for "pglite" an in-memory one (the URL
 * is not used).
 */
export async function createTestDatabase(kind: DatabaseKind, postgresServerUrl = ""): Promise<TestDatabase> {
  if (kind === "pglite") {
    const database = await openDatabase({ kind: "pglite", dataDir: "memory://", loadDataDir: await pgliteTemplate() });
    return { database, dispose: () => database.close() };
  }
  // A template another checkout's cleanup dropped between our look and our copy is built again.
  const { url, drop } = await createPostgresDatabase(postgresServerUrl, await postgresTemplate(postgresServerUrl)).catch(async (err: unknown) => {
    if (sqlState(err) !== "3D000") throw err;
    return createPostgresDatabase(postgresServerUrl, await postgresTemplate(postgresServerUrl));
  });
  const database = await openDatabase({ kind: "postgres", url });
  return {
    database,
    url,
    dispose: async () => {
      await database.close();
      await drop();
    },
  };
}

/**
 * `length` characters (= UTF-8 bytes) of random lowercase hex: content a write stores at about its
 * size (neither PostgreSQL's pglz nor PGlite's gains the 25 % it needs to compress it) and that the
 * server's scan passes. Hex cannot form any built-in rule's prefix in practice; a draw a rule matches
 * anyway is drawn again. (Random base64 did: `EAA` and 100+ letters matched
 * facebook-page-access-token in a CI run, refusing a write a disk-full test expected applied.)
 */
export function randomStorableText(length: number): string {
  for (;;) {
    const text = randomBytes(Math.ceil(length / 2)).toString("hex").slice(0, length);
    if (scan(text).length === 0) return text;
  }
}

/** Runs `query` on either driver (pg and PGlite both answer `{ rows }`). */
export async function rowsOf<T>(database: Pick<Database, "db">, query: SQL): Promise<T[]> {
  return ((await database.db.execute(query)) as unknown as { rows: T[] }).rows;
}

/**
 * Renames the stored entry `from` to `to` in the tables (`entries` with its fold key, `versions`),
 * past the path rules: the entry is then as a server from before a newer rule (a name holding an
 * invisible character, a Windows device name...) stored it. In namespace `namespace` (its name),
 * or in every namespace when omitted. Audit events and operations keep the old name.
 */
export async function renameStoredEntry(database: Pick<Database, "db">, from: string, to: string, namespace?: string): Promise<void> {
  const inNamespace = namespace === undefined ? sql`TRUE` : sql`namespace_id = (SELECT id FROM namespaces WHERE name = ${namespace})`;
  await database.db.execute(sql`UPDATE entries SET path = ${to}, fold_key = ${pathFoldKey(to)} WHERE path = ${from} AND ${inNamespace}`);
  await database.db.execute(sql`UPDATE versions SET path = ${to} WHERE path = ${from} AND ${inNamespace}`);
}

/** Every row of every table in the public schema, as text: what "anywhere in the database" means. */
export async function dumpAllRows(database: Pick<Database, "db">): Promise<string> {
  const tables = await rowsOf<{ table_name: string }>(
    database,
    sql`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'`,
  );
  let dump = "";
  for (const { table_name } of tables) {
    const rows = await rowsOf<{ row: string }>(database, sql.raw(`SELECT t::text AS row FROM "${table_name}" t`));
    dump += rows.map((r) => r.row).join("\n") + "\n";
  }
  return dump;
}

/**
 * Empties a database made by {@link createTestDatabase} back to the state of the migrated template:
 * every table of the public schema truncated and every sequence there restarted, in one
 * transaction. The append-only triggers of `audit_events` (which refuse TRUNCATE) are suspended for
 * that transaction only (`SET LOCAL session_replication_role = replica`: the superuser the tests
 * connect as, or PGlite's). Schema, functions, triggers and the migrations table are kept.
 * @throws the driver's error when the database is closed or refuses (the caller then drops it).
 */
export async function resetTestDatabase(database: Pick<Database, "db">): Promise<void> {
  const tables = await rowsOf<{ name: string }>(database, sql`SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename`);
  const sequences = await rowsOf<{ name: string }>(database, sql`SELECT sequencename AS name FROM pg_sequences WHERE schemaname = 'public' ORDER BY sequencename`);
  const quoted = (name: string) => `public."${name.replaceAll('"', '""')}"`;
  await database.db.transaction(async (tx) => {
    await tx.execute(sql`SET LOCAL session_replication_role = replica`);
    if (tables.length > 0) await tx.execute(sql.raw(`TRUNCATE ${tables.map((t) => quoted(t.name)).join(", ")} RESTART IDENTITY CASCADE`));
    for (const s of sequences) await tx.execute(sql.raw(`ALTER SEQUENCE ${quoted(s.name)} RESTART`));
  });
}

/**
 * Test databases handed out again after use instead of made anew: creating one costs ~2 s of CPU
 * for PGlite (the WASM cluster started from the template) and a `CREATE DATABASE` plus a
 * `DROP DATABASE` (seconds of PostgreSQL I/O under load) for PostgreSQL, emptying one with
 * {@link resetTestDatabase} tens of milliseconds. `take(kind)` gives an empty migrated database of
 * `kind`, a returned one when there is one; its `dispose()` empties it and puts it back (or, when
 * emptying fails, e.g. the test closed it, disposes of it for good). `close()` disposes of every
 * database the pool holds. Owned by its caller (e.g. one per test file, closed in `afterAll`);
 * `postgresServerUrl` as for {@link createTestDatabase}.
 */
export class TestDatabasePool {
  readonly #idle: { kind: DatabaseKind; tdb: TestDatabase }[] = [];

  constructor(private readonly postgresServerUrl: string) {}

  async take(kind: DatabaseKind): Promise<TestDatabase> {
    const index = this.#idle.findIndex((d) => d.kind === kind);
    const inner = index >= 0 ? this.#idle.splice(index, 1)[0]!.tdb : await createTestDatabase(kind, this.postgresServerUrl);
    let returned = false;
    return {
      database: inner.database,
      ...(inner.url === undefined ? {} : { url: inner.url }),
      dispose: async () => {
        if (returned) return;
        returned = true;
        try {
          await resetTestDatabase(inner.database);
        } catch {
          await inner.dispose().catch(() => undefined);
          return;
        }
        this.#idle.push({ kind, tdb: inner });
      },
    };
  }

  async close(): Promise<void> {
    await Promise.all(this.#idle.splice(0).map((d) => d.tdb.dispose()));
  }
}
