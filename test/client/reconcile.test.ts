/**
 * Issue 8, "The client notices when the server is not the one it synced with": a server reset,
 * restored from an earlier backup, or moved between the embedded database and PostgreSQL makes
 * every client reconcile by content (heads compared by sha256, what the server lacks uploaded as
 * new versions, what the client lacks pulled, both-changed merged), say so, and converge. A folder
 * that lost its state does not bring back what a teammate deleted.
 */
import { cp, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { describe, expect, it, onTestFinished } from "vitest";
import { NetworkError, type Api } from "@teammem/client";
import { DATABASE_KINDS, rowsOf, type DatabaseKind } from "@teammem/server/testing";
import { teammem, tempDir } from "../support/cli.js";
import { status, syncJson, tree } from "../support/clients.js";
import { engineSync } from "../support/engine.js";
import { startRestorableServer, type RestorableServer } from "../support/restorable.js";

interface Team {
  server: RestorableServer;
  root: string;
  a: string;
  b: string;
  env: { a: Record<string, string>; b: Record<string, string> };
}

async function team(kind: DatabaseKind): Promise<Team> {
  const server = await startRestorableServer(kind);
  onTestFinished(() => server.dispose());
  const root = await tempDir();
  onTestFinished(() => root.remove());
  const [a, b] = [join(root.path, "a"), join(root.path, "b")];
  const env = { a: { TEAMMEM_TOKEN: await server.token("alice") }, b: { TEAMMEM_TOKEN: await server.token("bob") } };
  for (const [dir, e] of [
    [a, env.a],
    [b, env.b],
  ] as const)
    expect(await teammem(["init", "--dir", dir, "--server", server.url, "--namespace", "acme-web"], e)).toMatchObject({ code: 0 });
  return { server, root: root.path, a, b, env };
}

/** Every head of the namespace on the server: path → content (tombstones left out). */
async function heads(server: RestorableServer): Promise<Record<string, string>> {
  const rows = await rowsOf<{ path: string; content: string | null; deleted: boolean }>(
    server.database(),
    sql`SELECT DISTINCT ON (path) path, content, kind = 'delete' AS deleted FROM versions ORDER BY path, version DESC`,
  );
  return Object.fromEntries(rows.filter((r) => !r.deleted).map((r) => [`team/${r.path}`, r.content!]));
}

/** The team files of `dir`: path → content. */
async function files(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const path of await tree(dir)) if (path.startsWith("team/")) out[path] = await readFile(join(dir, path), "utf8");
  return out;
}

const write = (dir: string, path: string, text: string) => writeFile(join(dir, "team", path), text);
const reconciledEvents = (json: { events: { type: string }[] }) => json.events.filter((e) => e.type === "reconciled");

/** A syncs, then B, then A again; both end equal to the server's heads. */
async function converge(t: Team): Promise<Record<string, string>> {
  for (const [dir, e] of [
    [t.a, t.env.a],
    [t.b, t.env.b],
    [t.a, t.env.a],
  ] as const)
    expect((await syncJson(dir, e)).code).toBe(0);
  const server = await heads(t.server);
  expect(await files(t.a)).toEqual(server);
  expect(await files(t.b)).toEqual(server);
  return server;
}

describe.each(DATABASE_KINDS)("reconciliation on %s", (kind) => {
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

  for (const [what, to] of [
    ["reset (a new empty database)", kind],
    ["moved to the other database kind", kind === "postgres" ? "pglite" : "postgres"],
  ] as const) {
    it(`server ${what}: clients upload what it lacks, keep their local edits, and converge`, async () => {
      const t = await team(kind);
      await write(t.a, "a.md", "a\n");
      await write(t.a, "shared.md", "s1\n");
      await converge(t);
      await write(t.b, "shared.md", "s1\nbob's line\n");

      await t.server.replace(to);
      t.env.a = { TEAMMEM_TOKEN: await t.server.token("alice") };
      t.env.b = { TEAMMEM_TOKEN: await t.server.token("bob") };
      const a = await syncJson(t.a, t.env.a);
      expect(a.code).toBe(0);
      expect(reconciledEvents(a.json)).toEqual([expect.objectContaining({ reason: expect.stringContaining("another one"), entries: 2, toSend: 2 })]);
      const text = await teammem(["sync", "--dir", t.b], t.env.b);
      expect(text.code).toBe(0);
      expect(text.stdout).toMatch(/reconciled with the server \(the server is another one .*\): compared 2 entries by content; 0 taken from the server, 1 local file\(s\) the server lacks sent as new versions/);
      expect(await converge(t)).toEqual({ "team/a.md": "a\n", "team/shared.md": "s1\nbob's line\n" });
    });
  }

  it("a reconciliation interrupted (server unreachable mid-way) stays due, status says so, the next sync finishes it", async () => {
    const t = await team(kind);
    await write(t.a, "a.md", "a\n");
    await converge(t);
    await t.server.replace(kind);
    const token = await t.server.token("alice");
    const failing = await engineSync(t.a, token, {
      wrap: (api: Api) => ({ ...api, heads: () => Promise.reject(new NetworkError(api.server, "ECONNRESET")) }),
    });
    expect(failing.error?.message).toContain("ECONNRESET");
    const s = await status(t.a);
    expect(s.reconcile).toEqual({ reason: expect.stringContaining("another one"), since: expect.any(String) });
    const shown = await teammem(["status", "--dir", t.a]);
    expect(shown.stdout).toContain("reconciliation with the server due since");
    expect(shown.stdout).not.toContain("everything synced");
    t.env.a = { TEAMMEM_TOKEN: token };
    const done = await syncJson(t.a, t.env.a);
    expect(done.code).toBe(0);
    expect(reconciledEvents(done.json)).toHaveLength(1);
    expect((await status(t.a)).reconcile).toBe(null);
    expect(await heads(t.server)).toEqual({ "team/a.md": "a\n" });
  });

  it("a folder that lost its state, re-initialised over a stale copy, does not bring back what a teammate deleted", async () => {
    const t = await team(kind);
    await write(t.a, "old.md", "old note\n");
    await write(t.a, "kept.md", "kept v1\n");
    await converge(t);
    // B's folder is copied to a new machine without its state; meanwhile A deletes old.md and edits kept.md.
    const c = join(t.root, "c");
    await cp(t.b, c, { recursive: true });
    await rm(join(c, ".teammem"), { recursive: true });
    await rm(join(t.a, "team", "old.md"));
    await write(t.a, "kept.md", "kept v2\n");
    expect((await syncJson(t.a, t.env.a)).code).toBe(0);
    await writeFile(join(c, "team", "new-on-c.md"), "written on the new machine\n");

    const envC = { TEAMMEM_TOKEN: await t.server.token("carol") };
    expect(await teammem(["init", "--dir", c, "--server", t.server.url, "--namespace", "acme-web"], envC)).toMatchObject({ code: 0 });
    const r = await teammem(["sync", "--dir", c, "--json"], envC);
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout);
    expect(json.events).toContainEqual({ type: "stale-copy", path: "team/old.md", version: 1, headVersion: 2, deleted: true });
    expect(json.events).toContainEqual({ type: "stale-copy", path: "team/kept.md", version: 1, headVersion: 2, deleted: false });
    const text = await teammem(["sync", "--dir", c], envC);
    expect(text.code).toBe(0);
    expect(await files(c)).toEqual({ "team/kept.md": "kept v2\n", "team/new-on-c.md": "written on the new machine\n" });
    expect((await heads(t.server))["team/old.md"]).toBeUndefined();
    expect((await heads(t.server))["team/new-on-c.md"]).toBe("written on the new machine\n");
  });
});
