/**
 * The NOTIFY of committed cursors, sent after the commit (store/change-notifier.ts), on a real
 * PostgreSQL database: a send that fails (no connection within the pool's timeout) is retried until
 * it goes out, and the cursors committed meanwhile leave together, the highest per namespace; a
 * lone write may carry its own notification instead (`claimInline`).
 */
import { randomUUID } from "node:crypto";
import pg from "pg";
import { describe, expect, inject, it, onTestFinished, vi } from "vitest";
import { ChangeNotifier } from "../../src/store/change-notifier.js";
import { createPostgresDatabase } from "../../src/testing.js";

describe("change notifier on postgres", () => {
  it("retries a failed send until it goes out, with the highest cursor per namespace", async () => {
    const { url, drop } = await createPostgresDatabase(inject("postgresUrl"));
    onTestFinished(() => drop());
    const listener = new pg.Client({ connectionString: url });
    await listener.connect();
    onTestFinished(() => listener.end());
    const notes: string[] = [];
    listener.on("notification", (n) => notes.push(n.payload ?? ""));
    await listener.query("LISTEN teammem_changes");

    // A pool of one connection, held by someone else: the notifier's send times out.
    const pool = new pg.Pool({ connectionString: url, max: 1, connectionTimeoutMillis: 200 });
    onTestFinished(() => pool.end());
    const warnings: string[] = [];
    const log = { warn: (_: unknown, msg: string) => void warnings.push(msg) } as unknown as ConstructorParameters<typeof ChangeNotifier>[1];
    // Retries after a second: the cursors below are handed over while no send is in flight.
    const notifier = new ChangeNotifier(pool, log, { retryMs: 1000 });
    onTestFinished(() => notifier.close());
    const held = await pool.connect();
    const [a, b] = [randomUUID(), randomUUID()];
    notifier.committed(a, 3);
    await vi.waitFor(() => expect(warnings).toContain("change notifier: sending NOTIFY failed; retrying"), { timeout: 10_000 });
    notifier.committed(a, 5);
    notifier.committed(a, 4); // committed earlier, handed over later: 5 stays
    notifier.committed(b, 1);
    expect(notifier.pendingCount).toBe(2);
    held.release();
    await vi.waitFor(() => expect(notes.sort()).toEqual([`${a}:5`, `${b}:1`].sort()), { timeout: 10_000 });
    expect(notifier.pendingCount).toBe(0);

    // Once sent, nothing is sent again; a later cursor is.
    notifier.committed(a, 6);
    await notifier.flush();
    await vi.waitFor(() => expect(notes).toContain(`${a}:6`));
    expect(notes).toHaveLength(3);
  });

  it("lets one write at a time notify inside its transaction, and only while nothing else of its own is being sent", async () => {
    const { url, drop } = await createPostgresDatabase(inject("postgresUrl"));
    onTestFinished(() => drop());
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    onTestFinished(() => pool.end());
    const notifier = new ChangeNotifier(pool, null);
    expect(notifier.claimInline()).toBe(true);
    expect(notifier.claimInline()).toBe(false); // one at a time: a second would wait for the first's commit
    notifier.inlineDone();
    expect(notifier.claimInline()).toBe(true);
    notifier.inlineDone();
    // A send in flight: the write shares the notifier's next send instead.
    notifier.committed(randomUUID(), 1);
    expect(notifier.claimInline()).toBe(false);
    await notifier.flush();
    expect(notifier.claimInline()).toBe(true);
    notifier.inlineDone();
    await notifier.close();
    expect(notifier.claimInline()).toBe(false);
    expect(new ChangeNotifier(null, null).claimInline()).toBe(false); // PGlite: writes notify inside their transactions anyway
  });

  it("sends nothing after close, and nothing at all without a pg pool (PGlite notifies inside the transaction)", async () => {
    const notifier = new ChangeNotifier(null, null);
    notifier.committed(randomUUID(), 1);
    expect(notifier.pendingCount).toBe(0);
    await notifier.close();
    const pool = new pg.Pool({ connectionString: inject("postgresUrl"), max: 1 });
    onTestFinished(() => pool.end());
    const closed = new ChangeNotifier(pool, null);
    await closed.close();
    closed.committed(randomUUID(), 1);
    expect(closed.pendingCount).toBe(0);
  });
});
