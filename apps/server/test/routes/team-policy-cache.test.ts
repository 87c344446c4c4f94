/**
 * The per-instance cache of a team's scan policy (plugins/team-policy.ts) reads each expired or
 * invalidated team once however many requests miss it together (single-flight), and never caches
 * or hands on a read that started before an invalidation.
 */
import pg from "pg";
import { afterEach, describe, expect, it, vi } from "vitest";
import { useHarness } from "./harness.js";

describe("team policy cache on postgres", () => {
  const h = useHarness("postgres");
  afterEach(() => vi.restoreAllMocks());

  /** Counts the queries the server's connections send from now on. */
  function countQueries(): { readonly count: number } {
    const counter = { count: 0 };
    const query = pg.Client.prototype.query;
    vi.spyOn(pg.Client.prototype, "query").mockImplementation(function (this: pg.Client, ...args: unknown[]) {
      counter.count++;
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof query);
    return counter;
  }

  async function teamId(): Promise<string> {
    const pool = (h.db as unknown as { $client: pg.Pool }).$client;
    return ((await pool.query("SELECT id FROM teams WHERE name = 'acme'")).rows[0] as { id: string }).id;
  }

  it("reads a missed team once for twenty concurrent requests", async () => {
    const team = await teamId();
    const policy = h.app.teamPolicy;
    await policy.scanPolicy(team); // the team's key exists from here on
    policy.invalidate(team);
    const one = countQueries();
    const first = await policy.scanPolicy(team);
    const perRead = one.count;
    vi.restoreAllMocks();
    expect(perRead).toBeGreaterThan(0);

    policy.invalidate(team);
    const many = countQueries();
    const policies = await Promise.all(Array.from({ length: 20 }, () => policy.scanPolicy(team)));
    expect(many.count).toBe(perRead);
    for (const p of policies) expect(p).toEqual(first);
    // Now cached: no query.
    await policy.scanPolicy(team);
    expect(many.count).toBe(perRead);
  });

  it("does not hand on or cache a read that started before an invalidation", async () => {
    const team = await teamId();
    const policy = h.app.teamPolicy;
    await policy.scanPolicy(team);
    policy.invalidate(team);
    const one = countQueries();
    await policy.scanPolicy(team);
    const perRead = one.count;
    vi.restoreAllMocks();

    policy.invalidate(team);
    const counter = countQueries();
    const before = policy.scanPolicy(team); // in flight until awaited below
    policy.invalidate(team); // e.g. a bypass decided through this instance, meanwhile
    const after = policy.scanPolicy(team);
    await Promise.all([before, after]);
    // The second caller did not join the first read: two reads; the second one is cached.
    expect(counter.count).toBe(2 * perRead);
    await policy.scanPolicy(team);
    expect(counter.count).toBe(2 * perRead);
  });
});
