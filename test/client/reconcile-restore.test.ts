/**
 * Issue 8, "The client notices when the server is not the one it synced with": a server restored
 * from an earlier backup (with a new epoch, and without one: the cursor above the server's is
 * refused) makes every client reconcile by content (heads compared by sha256, what the server lacks
 * uploaded as new versions, what the client lacks pulled, both-changed merged), say so, and converge.
 */
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { DATABASE_KINDS, rowsOf } from "@teammem/server/testing";
import { teammem } from "../support/cli.js";
import { status, syncJson } from "../support/clients.js";
import { converge, heads, reconciledEvents, team, write } from "../support/reconcile-team.js";

describe.each(DATABASE_KINDS)("reconciliation after a restore on %s", (kind) => {
  it("server restored from an earlier backup: what it lost is uploaded as new versions, deletes stay deleted, both-changed files merge", async () => {
    const t = await team(kind);
    await write(t.a, "x.md", "x1\n");
    await write(t.a, "y.md", "y1\n");
    await write(t.a, "notes.md", "- one\n");
    await converge(t);
    const backup = await t.server.backup();

    // After the backup: a new file, an edit, a delete; both clients see them.
    await write(t.a, "z.md", "z after the backup\n");
    await write(t.a, "x.md", "x2\n");
    await rm(join(t.a, "team", "y.md"));
    await converge(t);

    await t.server.restore(backup);
    // A dry run says the sync would reconcile (and changes nothing).
    const dry = await teammem(["sync", "--dir", t.b, "--dry-run", "--json"], t.env.b);
    expect([dry.code, JSON.parse(dry.stdout).reconcile]).toEqual([0, true]);
    expect((await status(t.b)).reconcile).toBe(null);
    // Meanwhile a teammate edits the restored server's notes (after its restore), and B edits notes too.
    await write(t.b, "notes.md", "- one\n- from bob\n");
    const b = await syncJson(t.b, t.env.b);
    expect(b.code).toBe(0);
    expect(reconciledEvents(b.json)).toEqual([expect.objectContaining({ reason: expect.stringContaining("epoch changed"), toSend: 4 })]);
    expect(await heads(t.server)).toEqual({ "team/x.md": "x2\n", "team/z.md": "z after the backup\n", "team/notes.md": "- one\n- from bob\n" });

    await write(t.a, "notes.md", "- one\n- from alice\n");
    const a = await syncJson(t.a, t.env.a);
    expect(a.code).toBe(0);
    expect(reconciledEvents(a.json)).toHaveLength(1);
    expect(a.json.events).toContainEqual(expect.objectContaining({ type: "merged", path: "team/notes.md" }));
    const end = await converge(t);
    expect(end).toEqual({ "team/x.md": "x2\n", "team/z.md": "z after the backup\n", "team/notes.md": "- one\n- from bob\n- from alice\n" });
    // History is never rewritten: the restored versions stay, the lost ones come back as new versions.
    const xs = await rowsOf<{ version: number; content: string }>(t.server.database(), sql`SELECT version, content FROM versions WHERE path = 'x.md' ORDER BY version`);
    expect(xs.map((r) => [Number(r.version), r.content])).toEqual([
      [1, "x1\n"],
      [2, "x2\n"],
    ]);
    expect((await status(t.a)).reconcile).toBe(null);
  });

  it("server restored without a new epoch: the cursor above the server's is refused (stale_cursor) and the client reconciles", async () => {
    const t = await team(kind);
    await write(t.a, "x.md", "x1\n");
    await converge(t);
    const backup = await t.server.backup();
    await write(t.a, "x.md", "x2\n");
    await write(t.a, "w.md", "w\n");
    await converge(t);
    await t.server.restore(backup, { bumpEpoch: false });
    const a = await syncJson(t.a, t.env.a);
    expect(a.code).toBe(0);
    expect(reconciledEvents(a.json)).toHaveLength(1);
    expect(await converge(t)).toEqual({ "team/x.md": "x2\n", "team/w.md": "w\n" });
  });

});
