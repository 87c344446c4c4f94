/**
 * A real teammem server whose database can be backed up, restored, reset or moved to the other
 * kind while its URL stays the same, as an operator does it:
 * - PostgreSQL: a backup is `CREATE DATABASE copy TEMPLATE current` (the server stopped meanwhile);
 *   a restore serves a copy of it;
 * - PGlite: the database is a folder; a backup copies it (the server stopped), a restore serves a
 *   copy of the copy.
 * After a restore the epoch is bumped as `teammem-server epoch rotate` does (`startNewEpoch`)
 * unless asked not to. Tokens are issued on the current database (a reset needs new ones).
 */
import { randomBytes } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { inject } from "vitest";
import { buildApp, exportBackup, importBackup, issueToken, openDatabase, readLines, startNewEpoch, type Database } from "@teammem/server";
import type { DatabaseKind } from "@teammem/server/testing";
import { JWT_SECRET, reopenableListener } from "./server.js";

/** Where one database lives. */
type Place = { kind: "postgres"; name: string } | { kind: "pglite"; dir: string };

export interface RestorableServer {
  readonly url: string;
  /** The database the server runs on now. */
  database(): Database;
  token(user: string): Promise<string>;
  /** A copy of the database as it is now. */
  backup(): Promise<Place>;
  /** Serves a copy of `backup` from now on; the epoch is bumped unless `bumpEpoch` is false. */
  restore(backup: Place, options?: { bumpEpoch?: boolean }): Promise<void>;
  /** Serves a new, empty database of `kind` from now on (a reset, or a move to the other kind). */
  replace(kind: DatabaseKind): Promise<void>;
  /**
   * Moves the data to a new database of `kind` as an operator does with `teammem-server export` and
   * `import` (through a backup file); the import starts a new epoch. Tokens stay valid.
   */
  moveByExport(kind: DatabaseKind): Promise<void>;
  stop(): Promise<void>;
  start(): Promise<void>;
  dispose(): Promise<void>;
}

function urlOf(name: string): string {
  const u = new URL(inject("postgresUrl"));
  u.pathname = "/" + name;
  return u.toString();
}

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: inject("postgresUrl") });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export async function startRestorableServer(kind: DatabaseKind): Promise<RestorableServer> {
  const places: Place[] = [];
  const fresh = async (k: DatabaseKind): Promise<Place> => {
    const place: Place =
      k === "postgres" ? { kind: "postgres", name: "teammem_test_" + randomBytes(6).toString("hex") } : { kind: "pglite", dir: await mkdtemp(join(tmpdir(), "teammem-pglite-")) };
    if (place.kind === "postgres") await admin(`CREATE DATABASE ${place.name}`);
    places.push(place);
    return place;
  };
  const open = (p: Place) => openDatabase(p.kind === "postgres" ? { kind: "postgres", url: urlOf(p.name) } : { kind: "pglite", dataDir: p.dir });

  let place = await fresh(kind);
  let database = await open(place);
  await database.migrate();
  const { start, stop, url } = reopenableListener(() => buildApp({ db: database.db, jwtSecret: JWT_SECRET, limits: { rateLimitMax: 0 } }));
  /**
   * Stops the server and closes the database, runs `fn`, opens the place it returns (default: the
   * same), migrates it, runs `beforeStart` and starts again.
   */
  const offline = async (fn: () => Promise<Place | void>, beforeStart?: () => Promise<unknown>) => {
    await stop();
    await database.close();
    place = (await fn()) ?? place;
    database = await open(place);
    await database.migrate();
    await beforeStart?.();
    await start();
  };
  const copy = async (from: Place): Promise<Place> => {
    if (from.kind === "postgres") {
      const to: Place = { kind: "postgres", name: "teammem_test_" + randomBytes(6).toString("hex") };
      await admin(`CREATE DATABASE ${to.name} TEMPLATE ${from.name}`);
      places.push(to);
      return to;
    }
    const to: Place = { kind: "pglite", dir: await mkdtemp(join(tmpdir(), "teammem-pglite-")) };
    await cp(from.dir, to.dir, { recursive: true });
    places.push(to);
    return to;
  };

  await start();
  return {
    url: url(),
    database: () => database,
    token: async (user) => (await issueToken(database.db, JWT_SECRET, { teamName: "default", userName: user, role: "member" })).token,
    backup: async () => {
      let snapshot: Place | undefined;
      await offline(async () => {
        snapshot = await copy(place);
      });
      return snapshot!;
    },
    restore: (backup, options) =>
      offline(
        () => copy(backup),
        options?.bumpEpoch === false ? undefined : () => startNewEpoch(database.db, "restored from a backup (test)"),
      ),
    replace: async (k) => {
      const next = await fresh(k);
      await offline(async () => next);
    },
    moveByExport: async (k) => {
      const next = await fresh(k);
      const dir = await mkdtemp(join(tmpdir(), "teammem-backup-"));
      try {
        const file = join(dir, "backup.jsonl");
        await offline(async () => {
          const from = await open(place);
          try {
            const out = createWriteStream(file);
            await exportBackup(from.db, (chunk) => new Promise<void>((resolve, reject) => out.write(chunk, (e) => (e ? reject(e) : resolve()))));
            await new Promise((resolve) => out.end(resolve));
          } finally {
            await from.close();
          }
          const to = await open(next);
          try {
            await to.migrate();
            await importBackup(to.db, readLines(createReadStream(file)), { source: "backup.jsonl (test)" });
          } finally {
            await to.close();
          }
          return next;
        });
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
    stop,
    start,
    dispose: async () => {
      await stop();
      await database.close();
      for (const p of places) {
        if (p.kind === "postgres") await admin(`DROP DATABASE IF EXISTS ${p.name} WITH (FORCE)`);
        else await rm(p.dir, { recursive: true, force: true });
      }
    },
  };
}
