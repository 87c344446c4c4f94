import { readFileSync } from "node:fs";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { MIGRATIONS_DIR } from "../db/database.js";
import { isStorageFull, sqlState, transientDatabaseFailure } from "../errors/database-errors.js";

/**
 * One readiness check: resolves when its part is ready, throws (or rejects) with a short reason
 * otherwise. It must not leak secrets or content into the message: it is shown to anyone.
 */
export type ReadinessCheck = () => Promise<void>;

export interface Readiness {
  /**
   * Adds a check `/readyz` runs on every call, e.g. the live-sync LISTEN connection:
   * `app.readiness.add("listen", async () => { if (!hub.listening) throw new Error("LISTEN connection down"); })`.
   * Register it while the app is being built (before `ready()`). Names are unique.
   */
  add(name: string, check: ReadinessCheck): void;
  /** Runs every check (concurrently, each bounded by `checkTimeoutMs`). */
  run(): Promise<{ ready: boolean; checks: Record<string, string> }>;
}

export interface ReadinessOptions {
  /** A check not done within this many ms counts as failed. Default 2000. */
  checkTimeoutMs?: number;
}

/** The newest migration the committed journal lists (its `when`, ms since epoch, is what drizzle stores as `created_at`). */
function newestMigration(): { tag: string; when: number } {
  const journal = JSON.parse(readFileSync(join(MIGRATIONS_DIR, "meta", "_journal.json"), "utf8")) as { entries: { tag: string; when: number }[] };
  const last = journal.entries.at(-1);
  if (!last) throw new Error("the migrations journal lists no migration");
  return last;
}

function withTimeout(check: ReadinessCheck, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    check(),
    new Promise<void>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/**
 * `GET /healthz`: the process is alive (no check; for liveness probes).
 * `GET /readyz`: the server can serve: 200 `{ ready: true, checks }` or 503 `{ ready: false, checks }`,
 * `checks` naming each part `ok` or why not: `database` (a `SELECT 1` answers), `migrations` (the
 * newest committed migration is applied), `shutdown` (not closing), plus what other plugins add
 * through `app.readiness.add` (the live-sync LISTEN connection). Neither needs a token or counts
 * against the rate limit; neither shows in the OpenAPI document.
 */
async function readiness(app: FastifyInstance, opts: ReadinessOptions): Promise<void> {
  const timeoutMs = opts.checkTimeoutMs ?? 2000;
  const checks = new Map<string, ReadinessCheck>();
  const newest = newestMigration();

  const add = (name: string, check: ReadinessCheck) => {
    if (checks.has(name)) throw new Error(`readiness check ${name} is already registered`);
    checks.set(name, check);
  };
  add("database", async () => {
    try {
      await app.db.execute(sql`SELECT 1`);
    } catch (err) {
      if (isStorageFull(err)) throw new Error("disk full: the database has no space left (free space; the embedded database needs a restart then)");
      throw new Error(transientDatabaseFailure(err) ? "unreachable" : "failing");
    }
  });
  add("migrations", async () => {
    // The reply is public: a failure is named in words, never with the statement drizzle puts in its message.
    const rows = (await app.db.execute(sql`SELECT max(created_at)::text AS newest FROM drizzle.__drizzle_migrations`).catch((err: unknown) => {
      if (transientDatabaseFailure(err)) throw new Error("unknown: the database is unreachable");
      if (["42P01", "3F000"].includes(sqlState(err) ?? "")) throw new Error("not applied (no migrations table): run teammem-server migrate");
      throw new Error("unknown: the migrations table could not be read");
    })) as unknown as {
      rows: { newest: string | null }[];
    };
    const applied = Number(rows.rows[0]?.newest ?? 0);
    if (applied < newest.when) throw new Error(`not applied up to ${newest.tag}: run teammem-server migrate`);
  });
  add("shutdown", async () => {
    if (app.closing) throw new Error("shutting down");
  });

  const run = async () => {
    const names = [...checks.keys()];
    const results = await Promise.allSettled(names.map((name) => withTimeout(checks.get(name)!, timeoutMs)));
    const out: Record<string, string> = {};
    names.forEach((name, i) => {
      const r = results[i]!;
      out[name] = r.status === "fulfilled" ? "ok" : String((r.reason as Error)?.message ?? r.reason).slice(0, 200);
    });
    return { ready: results.every((r) => r.status === "fulfilled"), checks: out };
  };
  app.decorate("readiness", { add, run } satisfies Readiness);

  const hidden = { config: { rateLimit: false }, schema: { hide: true } };
  app.get("/healthz", hidden, async () => ({ ok: true }));
  app.get("/readyz", hidden, async (_request, reply) => {
    const result = await run();
    return reply.status(result.ready ? 200 : 503).header("cache-control", "no-store").send(result);
  });
}

declare module "fastify" {
  interface FastifyInstance {
    readiness: Readiness;
  }
}

export default fp(readiness, { name: "teammem-readiness", dependencies: ["teammem-shutdown"] });
