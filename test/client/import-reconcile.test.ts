/**
 * Issue 12, "Back up and move": a server moved to the other database kind with `teammem-server
 * export` and `import` keeps its id and starts a new epoch; clients that synced with it before
 * keep their tokens, reconcile by content on their next sync and say so, lose no local edit, and
 * converge without duplicating history.
 */
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { DATABASE_KINDS, rowsOf } from "@teammem/server/testing";
import { teammem } from "../support/cli.js";
import { syncJson } from "../support/clients.js";
import { converge, reconciledEvents, team, write } from "../support/reconcile-team.js";

describe.each(DATABASE_KINDS)("a server on %s moved by export and import", (kind) => {
  it("clients reconcile (new epoch), say so, keep their local edits and converge; their tokens stay valid", async () => {
    const t = await team(kind);
    await write(t.a, "a.md", "a\n");
    await write(t.a, "shared.md", "s1\n");
    await converge(t);
    await write(t.b, "shared.md", "s1\nbob's line\n");
    const identity = async () =>
      (await rowsOf<{ key: string; value: string }>(t.server.database(), sql`SELECT key, value FROM server_settings WHERE key IN ('server_id', 'epoch') ORDER BY key`)).map(
        (r) => (r.key === "epoch" ? (JSON.parse(r.value) as { id: string }).id : r.value),
      );
    const [epochBefore, idBefore] = await identity();

    await t.server.moveByExport(kind === "postgres" ? "pglite" : "postgres");
    const [epochAfter, idAfter] = await identity();
    expect(idAfter).toBe(idBefore);
    expect(epochAfter).not.toBe(epochBefore);

    // The same tokens as before the move.
    const a = await syncJson(t.a, t.env.a);
    expect(a.code).toBe(0);
    expect(reconciledEvents(a.json)).toEqual([expect.objectContaining({ reason: expect.stringContaining("its epoch changed"), entries: 2, toSend: 0 })]);
    const b = await teammem(["sync", "--dir", t.b], t.env.b);
    expect(b.code).toBe(0);
    expect(b.stdout).toMatch(/reconciled with the server \(the server's database was restored, reset or moved \(its epoch changed\)\): compared 2 entries by content/);
    expect(await converge(t)).toEqual({ "team/a.md": "a\n", "team/shared.md": "s1\nbob's line\n" });
    // History holds each edit once: a.md v1; shared.md v1 and bob's edit.
    const history = await rowsOf<{ path: string; n: number }>(t.server.database(), sql`SELECT path, count(*)::int AS n FROM versions GROUP BY path ORDER BY path`);
    expect(history).toEqual([
      { path: "a.md", n: 1 },
      { path: "shared.md", n: 2 },
    ]);
  }, 300_000);
});
