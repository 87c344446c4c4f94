/**
 * Every new server epoch is audited, committed with the epoch (review of ea05e09):
 * - the server starting a new epoch itself, on finding its database restored, records
 *   `epoch_rotated` in every team by actor `server`, the reason naming what changed;
 * - `teammem-server epoch rotate` reads the epoch it replaces under the epoch row's lock, so two
 *   rotations at once record a chain (A->B, B->C), never the same previous epoch twice.
 * A data-only restore is played by deleting the settings rows and inserting them back (new row
 * versions: "settings rows changed"), which both PostgreSQL and PGlite detect.
 */
import { sql } from "drizzle-orm";
import pg from "pg";
import { describe, expect, inject, it, onTestFinished } from "vitest";
import type { AuditEvent } from "@teammem/protocol";
import { openDatabase, type Db } from "../../src/db/database.js";
import { loadServerIdentity } from "../../src/identity/server-identity.js";
import { DATABASE_KINDS, rowsOf } from "../../src/testing.js";
import { cli, cliDatabase, startCli } from "../platform/cli-harness.js";
import { createHarness, type Harness } from "../routes/harness.js";
import { failCommitsWriting, type Exec } from "./refuse-commit.js";

const RESTORED = "database restored or replaced (settings rows changed)";

/** Deletes the settings rows and inserts them back in one transaction, as a data-only restore does. */
async function restoreSettingsRows(db: Db): Promise<void> {
  const rows = await rowsOf<{ key: string; value: string }>({ db }, sql`SELECT key, value FROM server_settings`);
  await db.transaction(async (tx) => {
    await tx.execute(sql`DELETE FROM server_settings`);
    for (const r of rows) await tx.execute(sql`INSERT INTO server_settings (key, value) VALUES (${r.key}, ${r.value})`);
  });
}

/** The stored epoch id, read directly. */
async function storedEpoch(db: Db): Promise<string> {
  const [row] = await rowsOf<{ value: string }>({ db }, sql`SELECT value FROM server_settings WHERE key = 'epoch'`);
  return (JSON.parse(row!.value) as { id: string }).id;
}

/** Every `epoch_rotated` event as stored: by team name (none first), then oldest first. */
async function rotations(db: Db) {
  return rowsOf<{ team: string | null; actor: string; epoch: string; previousEpoch: string; reasonText: string }>(
    { db },
    sql`SELECT t.name AS team, e.actor_name AS actor, e.epoch, e.previous_epoch AS "previousEpoch", e.reason_text AS "reasonText"
        FROM audit_events e LEFT JOIN teams t ON t.id = e.team_id WHERE e.kind = 'epoch_rotated' ORDER BY t.name NULLS FIRST, e.id`,
  );
}

/** The team's `epoch_rotated` events, newest first, through the admin API. */
async function rotationsViaApi(h: Harness): Promise<AuditEvent[]> {
  const res = await h.call("GET", "/v1/admin/audit-events?kind=epoch_rotated", h.tokens.admin);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().events as AuditEvent[];
}

describe.each(DATABASE_KINDS)("a new epoch the server starts on a restored database, on %s", (kind) => {
  it("is one epoch_rotated event in every team by actor server, however many processes notice at once; an unrestored start records none", async () => {
    const h = await createHarness(kind);
    onTestFinished(() => h.close());
    const before = await loadServerIdentity(h.db);
    expect(await rotations(h.db)).toEqual([]); // the first start, and loading again, are no rotation

    await restoreSettingsRows(h.db);
    const [a, b] = await Promise.all([loadServerIdentity(h.db), loadServerIdentity(h.db)]);
    expect(a).toEqual(b);
    expect(a).toMatchObject({ server: { id: before.server.id }, epochReason: RESTORED });
    expect(a.server.epoch).not.toBe(before.server.epoch);
    const event = { actor: "server", epoch: a.server.epoch, previousEpoch: before.server.epoch, reasonText: RESTORED };
    expect(await rotations(h.db)).toEqual([
      { team: "acme", ...event },
      { team: "other", ...event },
    ]);
    expect(await loadServerIdentity(h.db)).toEqual(a);
    expect(await rotations(h.db)).toHaveLength(2);
    // The team's admins read it through the admin API, as they read an operator's rotation.
    expect(await rotationsViaApi(h)).toEqual([expect.objectContaining({ kind: "epoch_rotated", ...event, count: null, tokenId: null })]);
  });

  it("is recorded by `teammem-server start` on a database restored while it was stopped, and shown by `audit list`", { timeout: 300_000 }, async () => {
    const { args, env } = await cliDatabase(kind, inject("postgresUrl"), { seeded: true });
    const created = await cli(["team", "create", "acme", "--admin", "ada", ...args], env);
    expect(created.status, created.stderr).toBe(0);
    const token = created.stdout.trim();
    const previous = /server \S+ epoch (\S+)/.exec((await cli(["epoch", "show", ...args], env)).stdout)![1];

    const direct = await openDatabase(kind === "postgres" ? { kind, url: env["DATABASE_URL"]! } : { kind, dataDir: args[1]! });
    await restoreSettingsRows(direct.db);
    await direct.close();

    const server = await startCli(args, env);
    const res = await fetch(`${server.url}/v1/admin/audit-events?kind=epoch_rotated`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    const [event, ...others] = ((await res.json()) as { events: AuditEvent[] }).events;
    expect(others).toEqual([]);
    expect(event).toMatchObject({ kind: "epoch_rotated", actor: "server", previousEpoch: previous, reasonText: RESTORED });
    expect(event!.epoch).not.toBe(previous);
    expect(await server.stop()).toBe(0);

    const shown = await cli(["epoch", "show", ...args], env);
    expect(shown.stdout).toContain(`epoch ${event!.epoch} (since `);
    const listed = await cli(["audit", "list", "--team", "acme", "--kind", "epoch_rotated", "--json", ...args], env);
    expect((JSON.parse(listed.stdout) as { events: AuditEvent[] }).events).toEqual([event]);
  });
});

describe("a new epoch the server starts on a restored database, on postgres, commits with its events", () => {
  it.each(["audit_events", "server_settings"])(
    "a refused commit of a transaction writing %s leaves the old epoch and no event; unrefused, both",
    async (table) => {
      const h = await createHarness("postgres");
      onTestFinished(() => h.close());
      const before = await loadServerIdentity(h.db);
      await restoreSettingsRows(h.db);
      const exec: Exec = (text) => h.db.execute(sql.raw(text));
      const lift = await failCommitsWriting(exec, table);

      const refused = await loadServerIdentity(h.db).then(
        () => null,
        (e: unknown) => e,
      );
      expect((refused as Error | null)?.cause).toMatchObject({ message: `test trigger: commit of a write to ${table} refused` });
      expect(await storedEpoch(h.db)).toBe(before.server.epoch);
      expect(await rotations(h.db)).toEqual([]);

      await lift();
      const after = await loadServerIdentity(h.db);
      expect(after.epochReason).toBe(RESTORED);
      expect(await storedEpoch(h.db)).toBe(after.server.epoch);
      expect((await rotations(h.db)).map((e) => [e.team, e.previousEpoch, e.epoch])).toEqual([
        ["acme", before.server.epoch, after.server.epoch],
        ["other", before.server.epoch, after.server.epoch],
      ]);
    },
  );
});

describe("teammem-server epoch rotate, twice at once on postgres", () => {
  it("records two events whose epochs chain (A->B, B->C), never the same previous epoch twice", { timeout: 300_000 }, async () => {
    const { args, env } = await cliDatabase("postgres", inject("postgresUrl"));
    expect((await cli(["team", "create", "acme", "--admin", "ada", ...args], env)).status).toBe(0);
    const first = /server \S+ epoch (\S+)/.exec((await cli(["epoch", "show", ...args], env)).stdout)![1]!;

    // A third connection holds the epoch row, so both rotations are under way before either reads
    // it: the old code read the previous epoch before its transaction, both reading `first`.
    const holder = new pg.Client({ connectionString: env["DATABASE_URL"] });
    await holder.connect();
    onTestFinished(() => holder.end());
    await holder.query("BEGIN");
    await holder.query("SELECT value FROM server_settings WHERE key = 'epoch' FOR UPDATE");
    const rotateEnv = { ...env, TEAMMEM_DB_LOCK_TIMEOUT_MS: "600000" }; // they wait on the holder as long as the test runs
    const runs = ["one", "two"].map((n) => cli(["epoch", "rotate", "--reason", `rotation ${n}`, ...args], rotateEnv));
    // Watched from a connection of its own: inside the holder's transaction, pg_stat_activity would be one snapshot.
    const watcher = new pg.Client({ connectionString: env["DATABASE_URL"] });
    await watcher.connect();
    onTestFinished(() => watcher.end());
    const waiting = async () =>
      (
        await watcher.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
        )
      ).rows[0]!.n;
    while ((await waiting()) < 2) await new Promise((r) => setTimeout(r, 20));
    await holder.query("COMMIT");
    const results = await Promise.all(runs);
    for (const r of results) expect(r, r.stderr).toMatchObject({ status: 0 });

    const client = await openDatabase({ kind: "postgres", url: env["DATABASE_URL"]! });
    onTestFinished(() => client.close());
    const stored = await rotations(client.db);
    const [e1, e2] = [stored[0]?.epoch, stored[1]?.epoch];
    expect(stored.map((e) => [e.previousEpoch, e.epoch, e.actor])).toEqual([
      [first, e1, "cli"],
      [e1, e2, "cli"],
    ]);
    expect(new Set([first, e1, e2]).size).toBe(3);
    expect(e2).toBe(await storedEpoch(client.db));
    // Each command printed the epoch it replaced, as its event recorded it.
    const printed = results.map((r) => /epoch (\S+) .*; previous epoch (\S+)/.exec(r.stdout)!.slice(1, 3));
    expect(printed.sort()).toEqual(
      [
        [e1, first],
        [e2, e1],
      ].sort(),
    );
  });
});
