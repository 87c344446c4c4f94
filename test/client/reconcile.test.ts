/**
 * Issue 8, "The client notices when the server is not the one it synced with": a server reset or
 * moved between the embedded database and PostgreSQL makes every client reconcile by content and
 * converge; an interrupted reconciliation stays due (status says so) and resumes; a folder that
 * lost its state does not bring back what a teammate deleted (stale copies are not edits).
 */
import { cp, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { NetworkError, type Api } from "@teammem/client";
import { DATABASE_KINDS } from "@teammem/server/testing";
import { teammem } from "../support/cli.js";
import { status, syncJson } from "../support/clients.js";
import { engineSync } from "../support/engine.js";
import { converge, files, heads, reconciledEvents, team, write } from "../support/reconcile-team.js";

describe.each(DATABASE_KINDS)("reconciliation after a reset, a move or lost state on %s", (kind) => {
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
      expect(reconciledEvents(a.json)).toEqual([
        expect.objectContaining({ reason: expect.stringContaining("another one"), entries: 2, toSend: 2, toSendKinds: { missing: 2, edited: 0, deleted: 0 } }),
      ]);
      // B's shared.md is on the server now (A sent it): B's edit of it is an edit, not a file the server lacks (try18 F9).
      const text = await teammem(["sync", "--dir", t.b], t.env.b);
      expect(text.code).toBe(0);
      expect(text.stdout).toMatch(/reconciled with the server \(the server is another one .*\): compared 2 entries by content; 0 taken from the server, 1 file\(s\) edited here sent as new versions\n/);
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
